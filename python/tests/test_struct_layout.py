"""The structs python/quadrender/_lib.py copies by hand (ctypes) against the
C compiler's layout of the headers they mirror: the same fields in the same
order, each at the same offset with the same size, and the same sizeof.
The C side is tests/struct_layout.c, whose path QR_STRUCT_LAYOUT gives
(CTest sets it; without it the test is skipped). Needs neither NumPy nor
pytest: `python3 test_struct_layout.py PROGRAM` runs it on its own.
"""
import ctypes
import importlib.util
import json
import os
import subprocess
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _load_lib():
    # _lib.py alone (the package's __init__ needs NumPy); it loads
    # libquadrender from QUADRENDER_LIBRARY
    path = os.path.join(_HERE, os.pardir, "quadrender", "_lib.py")
    spec = importlib.util.spec_from_file_location("quadrender_lib_layout", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check(program):
    """The differences between the C layouts `program` prints and _lib's
    classes, one line each (empty: none)."""
    out = subprocess.run([program], check=True, capture_output=True, text=True).stdout
    c_layouts = json.loads(out)
    lib = _load_lib()
    py_classes = {name: cls for name, cls in vars(lib).items()
                  if isinstance(cls, type) and issubclass(cls, ctypes.Structure)
                  and cls.__module__ == lib.__name__}
    bad = []
    for name in sorted(set(py_classes) - set(c_layouts)):
        bad.append(f"{name}: a Python struct tests/struct_layout.c does not lay out")
    for name, c in c_layouts.items():
        cls = py_classes.get(name)
        if cls is None:
            bad.append(f"{name}: {c['c']} has no Python class in _lib.py")
            continue
        c_fields = [(f, off, size) for f, off, size in c["fields"]]
        py_fields = [(f, getattr(cls, f).offset, getattr(cls, f).size)
                     for f, _ in cls._fields_]
        if [f[0] for f in c_fields] != [f[0] for f in py_fields]:
            bad.append(f"{name}: fields {[f[0] for f in py_fields]}, "
                       f"{c['c']} has {[f[0] for f in c_fields]}")
        else:
            for cf, pf in zip(c_fields, py_fields):
                if cf != pf:
                    bad.append(f"{name}.{cf[0]}: offset {pf[1]} size {pf[2]} in Python, "
                               f"offset {cf[1]} size {cf[2]} in C")
        if ctypes.sizeof(cls) != c["size"]:
            bad.append(f"{name}: sizeof {ctypes.sizeof(cls)} in Python, {c['size']} in C")
    return bad


def test_struct_layouts_match_the_c_headers():
    program = os.environ.get("QR_STRUCT_LAYOUT")
    if not program:
        import pytest
        pytest.skip("QR_STRUCT_LAYOUT (tests/struct_layout.c's program) not set")
    bad = check(program)
    assert not bad, "\n".join(bad)


if __name__ == "__main__":
    problems = check(sys.argv[1] if len(sys.argv) > 1 else os.environ["QR_STRUCT_LAYOUT"])
    for line in problems:
        print(line)
    print("struct layouts: " + ("differ" if problems else "the same as C's"))
    sys.exit(1 if problems else 0)
