# Empty compiler generated dependencies file for test_cli_misc.
# This may be replaced when dependencies are built.
