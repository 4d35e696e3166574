# Empty compiler generated dependencies file for test_scenes_nonuniform.
# This may be replaced when dependencies are built.
