"""quadrender's version: the C project's, project(quadrender VERSION x.y.z)
in the repository's top CMakeLists.txt, the one place it is written.

A wheel holds this file with the version written out (python/CMakeLists.txt
writes it); in a source checkout (PYTHONPATH=python) it is read from the
CMakeLists.txt two directories up.
"""
import os
import re


def _from_cmake():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                        "CMakeLists.txt")
    try:
        with open(path, encoding="utf-8") as f:
            m = re.search(r"project\(quadrender\s+VERSION\s+([0-9][0-9.]*)", f.read())
    except OSError:
        m = None
    return m.group(1) if m else "0+unknown"


__version__ = _from_cmake()
