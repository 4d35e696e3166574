"""`python -m quadrender ARGS` runs the quadrender command, as the
installed `quadrender` does."""
from ._cli import main

main()
