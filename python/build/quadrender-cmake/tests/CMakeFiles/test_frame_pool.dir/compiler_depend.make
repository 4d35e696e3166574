# Empty compiler generated dependencies file for test_frame_pool.
# This may be replaced when dependencies are built.
