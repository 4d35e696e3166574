# Empty dependencies file for test_render_cpu.
# This may be replaced when dependencies are built.
