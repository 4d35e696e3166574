# Empty compiler generated dependencies file for quadrender_shared.
# This may be replaced when dependencies are built.
