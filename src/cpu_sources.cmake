# The library's C sources (relative to src/): the CPU path, shared by the
# library target (src/CMakeLists.txt) and the fuzz harnesses' own build with
# clang (fuzz/CMakeLists.txt).
set(QR_CPU_SOURCES
  common/error.c
  common/atomic_file.c
  common/file.c
  common/text.c
  common/threads.c
  scene/rng.c
  scene/scene.c
  scene/scene_load.c
  scene/builtin_names.c
  scene/builtin.c
  scene/builtin_clustered.c
  scene/depth_sort.c
  scene/animate.c
  scene/io/scene_file.c
  scene/io/scene_lines.c
  scene/io/scene_parse.c
  scene/io/scene_npy.c
  image/image.c
  image/image_bytes.c
  image/image_write.c
  image/image_stream.c
  image/png_encoder.c
  image/png_chunks.c
  image/image_parts.c
  image/png_filter.c
  render/cpu/render_cpu.c
  render/cpu/render_cpu_fast.c
  render/cpu/cpu_tile.c
  render/cpu/floor.c
  quadtree/index.c
  quadtree/host/host_grid.c
  quadtree/host/host_subtree.c
  quadtree/index_stats.c)
