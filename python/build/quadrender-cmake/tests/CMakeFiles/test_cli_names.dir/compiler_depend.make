# Empty compiler generated dependencies file for test_cli_names.
# This may be replaced when dependencies are built.
