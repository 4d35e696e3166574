#!/bin/sh
# Bundle the Python packages dev/python_compare.py needs that the GPU
# machine lacks (it reaches no package index) into .pydeps/ (git-ignored):
# datashader and the pure-Python packages it requires beyond what that
# machine has (numpy, pandas, numba, xarray, toolz, multipledispatch, scipy,
# requests, packaging, pyyaml): param, colorcet, pyct. Wheels for CPython
# 3.12 are fetched from PyPI with `pip download` (run this where pip reaches
# it) and unpacked as they are, so that PYTHONPATH=.pydeps makes them
# importable there; carry .pydeps to the device. Then it lists each
# bundled package's requirements that are neither bundled nor in that
# machine's list, which would be missing there.
# DATASHADER='datashader==0.18.2' pins a version (default: the newest).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
dest=.pydeps
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version 3.12 --implementation py --dest "$wheels" \
    "${DATASHADER:-datashader}" param colorcet pyct
rm -rf "$dest"
mkdir -p "$dest"
for w in "$wheels"/*.whl; do
    case "$(basename "$w")" in
        *-none-any.whl) ;;
        *) echo "device-python-bundle: $(basename "$w") is not pure Python" >&2; exit 1 ;;
    esac
    python3 -m zipfile -e "$w" "$dest"
done
# requirements (extras left out) that nothing here or on the machine gives
python3 - "$dest" <<'PY'
import email, pathlib, re, sys
dest = pathlib.Path(sys.argv[1])
have = {"numpy", "pandas", "numba", "xarray", "toolz", "multipledispatch", "scipy",
        "requests", "packaging", "pyyaml"}
metas = [email.message_from_string(p.read_text()) for p in dest.glob("*.dist-info/METADATA")]
bundled = {m["Name"].lower().replace("_", "-") for m in metas}
print("device-python-bundle: " + ", ".join(f"{m['Name']} {m['Version']}" for m in metas))
missing = set()
for m in metas:
    for req in m.get_all("Requires-Dist") or []:
        if "extra ==" in req:
            continue
        name = re.split(r"[ ;<>=!~\[(]", req, maxsplit=1)[0].lower().replace("_", "-")
        if name not in bundled and name not in have:
            missing.add(f"{name} (for {m['Name']})")
if missing:
    print("device-python-bundle: missing on the device too: " + ", ".join(sorted(missing)))
PY
echo "device-python-bundle: ready in $dest ($(du -sh "$dest" | cut -f1)); PYTHONPATH=$dest"
