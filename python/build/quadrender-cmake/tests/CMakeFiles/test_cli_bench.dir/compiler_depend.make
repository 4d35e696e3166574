# Empty compiler generated dependencies file for test_cli_bench.
# This may be replaced when dependencies are built.
