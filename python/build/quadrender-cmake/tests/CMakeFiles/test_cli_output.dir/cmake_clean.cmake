file(REMOVE_RECURSE
  "CMakeFiles/test_cli_output.dir/test_cli_output.c.o"
  "CMakeFiles/test_cli_output.dir/test_cli_output.c.o.d"
  "test_cli_output"
  "test_cli_output.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_output.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
