# Empty compiler generated dependencies file for test_scenes_builtin.
# This may be replaced when dependencies are built.
