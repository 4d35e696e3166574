# Empty dependencies file for test_parse_parallel.
# This may be replaced when dependencies are built.
