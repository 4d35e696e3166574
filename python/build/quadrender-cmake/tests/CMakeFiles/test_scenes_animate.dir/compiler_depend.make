# Empty compiler generated dependencies file for test_scenes_animate.
# This may be replaced when dependencies are built.
