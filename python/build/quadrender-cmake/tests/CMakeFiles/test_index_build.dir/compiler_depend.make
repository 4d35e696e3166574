# Empty compiler generated dependencies file for test_index_build.
# This may be replaced when dependencies are built.
