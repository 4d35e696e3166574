file(REMOVE_RECURSE
  "CMakeFiles/qr_fuzz"
  "CMakeFiles/qr_fuzz-complete"
  "qr_fuzz-prefix/src/qr_fuzz-stamp/qr_fuzz-build"
  "qr_fuzz-prefix/src/qr_fuzz-stamp/qr_fuzz-configure"
  "qr_fuzz-prefix/src/qr_fuzz-stamp/qr_fuzz-download"
  "qr_fuzz-prefix/src/qr_fuzz-stamp/qr_fuzz-install"
  "qr_fuzz-prefix/src/qr_fuzz-stamp/qr_fuzz-mkdir"
  "qr_fuzz-prefix/src/qr_fuzz-stamp/qr_fuzz-patch"
  "qr_fuzz-prefix/src/qr_fuzz-stamp/qr_fuzz-update"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/qr_fuzz.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
