# Empty dependencies file for test_cli_output.
# This may be replaced when dependencies are built.
