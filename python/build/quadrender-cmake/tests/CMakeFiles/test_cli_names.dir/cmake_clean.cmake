file(REMOVE_RECURSE
  "CMakeFiles/test_cli_names.dir/test_cli_names.c.o"
  "CMakeFiles/test_cli_names.dir/test_cli_names.c.o.d"
  "test_cli_names"
  "test_cli_names.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_names.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
