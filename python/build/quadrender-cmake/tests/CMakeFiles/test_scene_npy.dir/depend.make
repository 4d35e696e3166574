# Empty dependencies file for test_scene_npy.
# This may be replaced when dependencies are built.
