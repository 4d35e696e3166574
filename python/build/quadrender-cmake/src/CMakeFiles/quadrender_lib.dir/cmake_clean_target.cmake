file(REMOVE_RECURSE
  "libquadrender.a"
)
