file(REMOVE_RECURSE
  "CMakeFiles/test_cli_dump.dir/test_cli_dump.c.o"
  "CMakeFiles/test_cli_dump.dir/test_cli_dump.c.o.d"
  "test_cli_dump"
  "test_cli_dump.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_dump.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
