# Empty dependencies file for test_image_stream.
# This may be replaced when dependencies are built.
