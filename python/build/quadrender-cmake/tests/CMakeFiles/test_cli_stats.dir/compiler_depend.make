# Empty compiler generated dependencies file for test_cli_stats.
# This may be replaced when dependencies are built.
