"""The `quadrender` command of an installed package (pyproject.toml's entry
point): runs the program the wheel carries, quadrender/bin/quadrender, in
place of this process, with the same arguments, so that its output, exit
status and signals are the program's own."""
import os
import sys


def path():
    """Where the package's quadrender program is (it may be missing in a
    source checkout, which has none until it is built)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "quadrender")


def main():
    exe = path()
    if not os.access(exe, os.X_OK):
        sys.exit(f"quadrender: the program is not in this install ({exe}); "
                 "reinstall the package, or run the repository's build of it")
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, ["quadrender"] + sys.argv[1:])


if __name__ == "__main__":
    main()
