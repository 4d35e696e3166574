file(REMOVE_RECURSE
  "CMakeFiles/test_cli_check.dir/test_cli_check.c.o"
  "CMakeFiles/test_cli_check.dir/test_cli_check.c.o.d"
  "test_cli_check"
  "test_cli_check.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_check.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
