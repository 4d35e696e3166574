# Empty compiler generated dependencies file for quadrender.
# This may be replaced when dependencies are built.
