file(REMOVE_RECURSE
  "CMakeFiles/test_cli_misc.dir/test_cli_misc.c.o"
  "CMakeFiles/test_cli_misc.dir/test_cli_misc.c.o.d"
  "test_cli_misc"
  "test_cli_misc.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_misc.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
