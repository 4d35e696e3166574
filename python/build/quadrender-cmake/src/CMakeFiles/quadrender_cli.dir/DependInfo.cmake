
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/cli/bench_cpu.c" "src/CMakeFiles/quadrender_cli.dir/cli/bench_cpu.c.o" "gcc" "src/CMakeFiles/quadrender_cli.dir/cli/bench_cpu.c.o.d"
  "/work/main/src/cli/bench_e2e.c" "src/CMakeFiles/quadrender_cli.dir/cli/bench_e2e.c.o" "gcc" "src/CMakeFiles/quadrender_cli.dir/cli/bench_e2e.c.o.d"
  "/work/main/src/cli/bench_report.c" "src/CMakeFiles/quadrender_cli.dir/cli/bench_report.c.o" "gcc" "src/CMakeFiles/quadrender_cli.dir/cli/bench_report.c.o.d"
  "/work/main/src/cli/bench_scaling.c" "src/CMakeFiles/quadrender_cli.dir/cli/bench_scaling.c.o" "gcc" "src/CMakeFiles/quadrender_cli.dir/cli/bench_scaling.c.o.d"
  "/work/main/src/cli/cli_args.c" "src/CMakeFiles/quadrender_cli.dir/cli/cli_args.c.o" "gcc" "src/CMakeFiles/quadrender_cli.dir/cli/cli_args.c.o.d"
  "/work/main/src/cli/cli_frames.c" "src/CMakeFiles/quadrender_cli.dir/cli/cli_frames.c.o" "gcc" "src/CMakeFiles/quadrender_cli.dir/cli/cli_frames.c.o.d"
  "/work/main/src/cli/cli_output.c" "src/CMakeFiles/quadrender_cli.dir/cli/cli_output.c.o" "gcc" "src/CMakeFiles/quadrender_cli.dir/cli/cli_output.c.o.d"
  "/work/main/src/cli/cli_progress.c" "src/CMakeFiles/quadrender_cli.dir/cli/cli_progress.c.o" "gcc" "src/CMakeFiles/quadrender_cli.dir/cli/cli_progress.c.o.d"
  "/work/main/src/cli/cli_seek.c" "src/CMakeFiles/quadrender_cli.dir/cli/cli_seek.c.o" "gcc" "src/CMakeFiles/quadrender_cli.dir/cli/cli_seek.c.o.d"
  "/work/main/src/cli/cli_shared.c" "src/CMakeFiles/quadrender_cli.dir/cli/cli_shared.c.o" "gcc" "src/CMakeFiles/quadrender_cli.dir/cli/cli_shared.c.o.d"
  "/work/main/src/cli/cmd_bench.c" "src/CMakeFiles/quadrender_cli.dir/cli/cmd_bench.c.o" "gcc" "src/CMakeFiles/quadrender_cli.dir/cli/cmd_bench.c.o.d"
  "/work/main/src/cli/cmd_check.c" "src/CMakeFiles/quadrender_cli.dir/cli/cmd_check.c.o" "gcc" "src/CMakeFiles/quadrender_cli.dir/cli/cmd_check.c.o.d"
  "/work/main/src/cli/cmd_dump.c" "src/CMakeFiles/quadrender_cli.dir/cli/cmd_dump.c.o" "gcc" "src/CMakeFiles/quadrender_cli.dir/cli/cmd_dump.c.o.d"
  "/work/main/src/cli/cmd_render.c" "src/CMakeFiles/quadrender_cli.dir/cli/cmd_render.c.o" "gcc" "src/CMakeFiles/quadrender_cli.dir/cli/cmd_render.c.o.d"
  "/work/main/src/cli/cmd_scenes.c" "src/CMakeFiles/quadrender_cli.dir/cli/cmd_scenes.c.o" "gcc" "src/CMakeFiles/quadrender_cli.dir/cli/cmd_scenes.c.o.d"
  "/work/main/src/cli/cmd_stats.c" "src/CMakeFiles/quadrender_cli.dir/cli/cmd_stats.c.o" "gcc" "src/CMakeFiles/quadrender_cli.dir/cli/cmd_stats.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/python/build/quadrender-cmake/src/CMakeFiles/quadrender_lib.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
