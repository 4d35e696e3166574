file(REMOVE_RECURSE
  "libqr_test_support.a"
)
