# Empty compiler generated dependencies file for quadrender_cli.
# This may be replaced when dependencies are built.
