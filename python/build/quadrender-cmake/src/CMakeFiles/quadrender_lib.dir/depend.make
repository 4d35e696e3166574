# Empty dependencies file for quadrender_lib.
# This may be replaced when dependencies are built.
