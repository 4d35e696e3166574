# Empty dependencies file for test_index_params.
# This may be replaced when dependencies are built.
