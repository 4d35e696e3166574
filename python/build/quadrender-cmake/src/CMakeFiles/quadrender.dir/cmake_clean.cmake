file(REMOVE_RECURSE
  "../quadrender"
  "../quadrender.pdb"
  "CMakeFiles/quadrender.dir/cli/main.c.o"
  "CMakeFiles/quadrender.dir/cli/main.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/quadrender.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
