
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/common/atomic_file.c" "src/CMakeFiles/quadrender_objects.dir/common/atomic_file.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/common/atomic_file.c.o.d"
  "/work/main/src/common/error.c" "src/CMakeFiles/quadrender_objects.dir/common/error.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/common/error.c.o.d"
  "/work/main/src/common/gpu_none.c" "src/CMakeFiles/quadrender_objects.dir/common/gpu_none.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/common/gpu_none.c.o.d"
  "/work/main/src/common/text.c" "src/CMakeFiles/quadrender_objects.dir/common/text.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/common/text.c.o.d"
  "/work/main/src/common/threads.c" "src/CMakeFiles/quadrender_objects.dir/common/threads.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/common/threads.c.o.d"
  "/work/main/src/image/image.c" "src/CMakeFiles/quadrender_objects.dir/image/image.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/image/image.c.o.d"
  "/work/main/src/image/image_stream.c" "src/CMakeFiles/quadrender_objects.dir/image/image_stream.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/image/image_stream.c.o.d"
  "/work/main/src/image/image_write.c" "src/CMakeFiles/quadrender_objects.dir/image/image_write.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/image/image_write.c.o.d"
  "/work/main/src/image/png_encoder.c" "src/CMakeFiles/quadrender_objects.dir/image/png_encoder.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/image/png_encoder.c.o.d"
  "/work/main/src/image/png_filter.c" "src/CMakeFiles/quadrender_objects.dir/image/png_filter.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/image/png_filter.c.o.d"
  "/work/main/src/quadtree/host_grid.c" "src/CMakeFiles/quadrender_objects.dir/quadtree/host_grid.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/quadtree/host_grid.c.o.d"
  "/work/main/src/quadtree/host_subtree.c" "src/CMakeFiles/quadrender_objects.dir/quadtree/host_subtree.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/quadtree/host_subtree.c.o.d"
  "/work/main/src/quadtree/index_stats.c" "src/CMakeFiles/quadrender_objects.dir/quadtree/index_stats.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/quadtree/index_stats.c.o.d"
  "/work/main/src/quadtree/quadtree_host.c" "src/CMakeFiles/quadrender_objects.dir/quadtree/quadtree_host.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/quadtree/quadtree_host.c.o.d"
  "/work/main/src/render/cpu_tile.c" "src/CMakeFiles/quadrender_objects.dir/render/cpu_tile.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/render/cpu_tile.c.o.d"
  "/work/main/src/render/render_cpu.c" "src/CMakeFiles/quadrender_objects.dir/render/render_cpu.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/render/render_cpu.c.o.d"
  "/work/main/src/render/render_cpu_fast.c" "src/CMakeFiles/quadrender_objects.dir/render/render_cpu_fast.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/render/render_cpu_fast.c.o.d"
  "/work/main/src/scene/animate.c" "src/CMakeFiles/quadrender_objects.dir/scene/animate.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/scene/animate.c.o.d"
  "/work/main/src/scene/builtin.c" "src/CMakeFiles/quadrender_objects.dir/scene/builtin.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/scene/builtin.c.o.d"
  "/work/main/src/scene/builtin_clustered.c" "src/CMakeFiles/quadrender_objects.dir/scene/builtin_clustered.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/scene/builtin_clustered.c.o.d"
  "/work/main/src/scene/depth_sort.c" "src/CMakeFiles/quadrender_objects.dir/scene/depth_sort.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/scene/depth_sort.c.o.d"
  "/work/main/src/scene/rng.c" "src/CMakeFiles/quadrender_objects.dir/scene/rng.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/scene/rng.c.o.d"
  "/work/main/src/scene/scene.c" "src/CMakeFiles/quadrender_objects.dir/scene/scene.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/scene/scene.c.o.d"
  "/work/main/src/scene/scene_file.c" "src/CMakeFiles/quadrender_objects.dir/scene/scene_file.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/scene/scene_file.c.o.d"
  "/work/main/src/scene/scene_lines.c" "src/CMakeFiles/quadrender_objects.dir/scene/scene_lines.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/scene/scene_lines.c.o.d"
  "/work/main/src/scene/scene_npy.c" "src/CMakeFiles/quadrender_objects.dir/scene/scene_npy.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/scene/scene_npy.c.o.d"
  "/work/main/src/scene/scene_parse.c" "src/CMakeFiles/quadrender_objects.dir/scene/scene_parse.c.o" "gcc" "src/CMakeFiles/quadrender_objects.dir/scene/scene_parse.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
