# Empty compiler generated dependencies file for test_scene_file.
# This may be replaced when dependencies are built.
