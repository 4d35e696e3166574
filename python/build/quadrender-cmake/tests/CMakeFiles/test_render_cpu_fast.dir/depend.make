# Empty dependencies file for test_render_cpu_fast.
# This may be replaced when dependencies are built.
