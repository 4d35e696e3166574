file(REMOVE_RECURSE
  "libquadrender_cli.a"
)
