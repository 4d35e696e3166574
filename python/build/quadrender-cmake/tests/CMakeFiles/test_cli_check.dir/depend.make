# Empty dependencies file for test_cli_check.
# This may be replaced when dependencies are built.
