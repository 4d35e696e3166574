"""Builds the C library (the repository's CMake build, target
quadrender_shared) and puts libquadrender.so into the package.

QUADRENDER_CMAKE_ARGS adds CMake options, e.g. "-DQR_CUDA=OFF" (CPU only)
or "-DCMAKE_CUDA_ARCHITECTURES=90" (one GPU generation: builds faster)."""
import glob
import os
import shlex
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class BuildWithLibrary(build_py):
    def run(self):
        build = os.path.join(self.build_lib, "..", "quadrender-cmake")
        args = shlex.split(os.environ.get("QUADRENDER_CMAKE_ARGS", ""))
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release"] + args)
        subprocess.check_call(["cmake", "--build", build, "--target", "quadrender_shared",
                               "-j", str(os.cpu_count() or 1)])
        super().run()
        dest = os.path.join(self.build_lib, "quadrender")
        os.makedirs(dest, exist_ok=True)
        libs = glob.glob(os.path.join(build, "**", "libquadrender.so.0"), recursive=True)
        if not libs:
            raise RuntimeError("the CMake build made no libquadrender.so.0")
        # the library under its SONAME, the file itself (no symbolic links)
        shutil.copyfile(os.path.realpath(libs[0]), os.path.join(dest, "libquadrender.so.0"))


setup(cmdclass={"build_py": BuildWithLibrary})
