# Empty compiler generated dependencies file for test_render_band.
# This may be replaced when dependencies are built.
