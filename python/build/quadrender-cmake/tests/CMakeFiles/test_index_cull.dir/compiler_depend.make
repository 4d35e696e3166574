# Empty compiler generated dependencies file for test_index_cull.
# This may be replaced when dependencies are built.
