file(REMOVE_RECURSE
  "CMakeFiles/test_cli_signals.dir/test_cli_signals.c.o"
  "CMakeFiles/test_cli_signals.dir/test_cli_signals.c.o.d"
  "test_cli_signals"
  "test_cli_signals.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_signals.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
