# Empty compiler generated dependencies file for test_cli_render.
# This may be replaced when dependencies are built.
