file(REMOVE_RECURSE
  "libquadrender.a"
  "libquadrender.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/quadrender_lib.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
