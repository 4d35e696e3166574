file(REMOVE_RECURSE
  "libquadrender.pdb"
  "libquadrender.so"
  "libquadrender.so.0"
  "libquadrender.so.0.1.0"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/quadrender_shared.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
