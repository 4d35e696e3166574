# Empty compiler generated dependencies file for quadrender_objects.
# This may be replaced when dependencies are built.
