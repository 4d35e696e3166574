# Empty dependencies file for test_cli_dump.
# This may be replaced when dependencies are built.
