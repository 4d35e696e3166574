"""The package's version, for scikit-build-core ([[tool.dynamic-metadata]]
in pyproject.toml): the C project's, project(quadrender VERSION x.y.z) in
the top CMakeLists.txt, the one place it is written. That file is
../CMakeLists.txt in a checkout and csrc/CMakeLists.txt in an unpacked sdist
(pyproject.toml copies the C project there)."""
import os
import re

_PATTERN = re.compile(r"project\(quadrender\s+VERSION\s+([0-9][0-9.]*)")


def dynamic_metadata(settings, project=None):
    for path in (os.path.join("csrc", "CMakeLists.txt"), os.path.join(os.pardir, "CMakeLists.txt")):
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                m = _PATTERN.search(f.read())
            if not m:
                raise RuntimeError(f"{path}: no project(quadrender VERSION x.y.z)")
            return {"version": m.group(1)}
    raise RuntimeError("quadrender: the C project's CMakeLists.txt is neither in csrc/ nor in ../")
