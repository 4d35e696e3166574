# Empty dependencies file for test_scenes_oracle.
# This may be replaced when dependencies are built.
