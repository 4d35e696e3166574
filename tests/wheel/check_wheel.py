"""The Python package as a user gets it: python/'s sdist is made
(scikit-build-core), a wheel is built from that sdist (the CPU build, so
that it takes seconds on CI's two cores; the CUDA build is the same CMake
build with QR_CUDA on), and the wheel is installed into a fresh virtual
environment with no compiler reachable and nothing fetched. There, with
neither QUADRENDER_LIBRARY nor QUADRENDER_CLI set: `import quadrender`
comes from the environment, renders on the CPU, has the C project's
version; the `quadrender` command runs; and the package's own tests
(python/tests) pass. Where auditwheel and patchelf are installed, the wheel
is first repaired to its manylinux tag, and that one is installed.

    check_wheel.py PYTHON_DIR VERSION WORK_DIR

The venv takes NumPy and pytest from the python that runs this (it is made
with --system-site-packages), so nothing is downloaded. Exit 77 (skipped,
saying why) without scikit-build-core or the venv module.
"""
import os
import shutil
import site
import subprocess
import sys
import zipfile

SKIP = 77


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, **kw)


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("QUADRENDER_", "PYTHON")) and k not in ("CMAKE_ARGS", "VIRTUAL_ENV")}
    env.update(extra)
    return env


def main():
    python_dir, version, work = sys.argv[1:4]
    python_dir = os.path.abspath(python_dir)
    try:
        import scikit_build_core.build  # noqa: F401
        import venv  # noqa: F401
        import ensurepip  # noqa: F401
    except ImportError as e:
        print(f"check_wheel: skipped: {e} (scripts/deps.sh installs scikit-build-core)")
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    dist, env_dir = os.path.join(work, "dist"), os.path.join(work, "venv")
    os.makedirs(dist)

    # the sdist, as `python -m build --sdist python` makes it
    run([sys.executable, "-c", "import sys, scikit_build_core.build as b; "
         "print(b.build_sdist(sys.argv[1]))", dist], cwd=python_dir, env=clean_env())
    sdists = [f for f in os.listdir(dist) if f.endswith(".tar.gz")]
    assert sdists == [f"quadrender-{version}.tar.gz"], sdists
    # the wheel, built from the sdist alone (its C sources under csrc/)
    run([sys.executable, "-m", "pip", "wheel", "-v", "--no-build-isolation", "--no-deps", "--no-cache-dir",
         "--disable-pip-version-check", "-w", dist, "-Ccmake.define.QR_CUDA=OFF",
         os.path.join(dist, sdists[0])], cwd=work, env=clean_env(CMAKE_BUILD_PARALLEL_LEVEL="2"))
    wheels = [f for f in os.listdir(dist) if f.endswith(".whl")]
    assert len(wheels) == 1, wheels
    wheel = os.path.join(dist, wheels[0])
    tag = wheels[0][:-len(".whl")].split("-", 2)[2]
    assert tag.startswith("py3-none-") and tag != "py3-none-any", f"wheel tag {tag}"
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        meta = z.read(f"quadrender-{version}.dist-info/WHEEL").decode()
    assert "Root-Is-Purelib: false" in meta, meta
    for name in ("quadrender/libquadrender.so.0", "quadrender/bin/quadrender",
                 "quadrender/_version.py", "quadrender/py.typed"):
        assert name in names, f"{name} not in {wheels[0]}"
    # auditwheel, where it is installed (scripts/deps.sh): the manylinux
    # tag this machine's build earns, and the repaired wheel is the one tested
    if shutil.which("patchelf") and subprocess.run(
            [sys.executable, "-m", "auditwheel", "--version"], capture_output=True).returncode == 0:
        repaired = os.path.join(dist, "repaired")
        run([sys.executable, "-m", "auditwheel", "repair", "-w", repaired, wheel])
        (name,) = os.listdir(repaired)
        assert "-manylinux_" in name, name
        wheel = os.path.join(repaired, name)
    else:
        print("check_wheel: no auditwheel and patchelf: the wheel is tested unrepaired")

    # a fresh environment; the install finds no compiler and fetches nothing
    run([sys.executable, "-m", "venv", "--system-site-packages", env_dir], env=clean_env())
    bin_dir = os.path.join(env_dir, "bin")
    py = os.path.join(bin_dir, "python")
    # --system-site-packages reaches the base interpreter's packages only;
    # where this Python is itself a virtual environment (the device's is),
    # numpy and pytest live in its own site-packages: the new one sees them
    # too, as it would see a system's
    purelib = run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                  env=clean_env(), capture_output=True, text=True).stdout.strip()
    with open(os.path.join(purelib, "_parent_site.pth"), "w") as f:
        f.write("\n".join(site.getsitepackages()) + "\n")
    run([py, "-m", "pip", "install", "--no-index", "--only-binary=:all:", "--no-cache-dir",
         "--disable-pip-version-check", wheel + "[test]"],
        cwd=work, env=clean_env(PATH=bin_dir, CC="false", CXX="false", CUDACXX="false"))

    # import, version, render on the CPU (from a directory holding no quadrender)
    user_env = clean_env(PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
    out = run([py, "-c", "import quadrender as qr, numpy as np\n"
               "img = qr.render(qr.scene('rand10k'), 128, device='cpu')\n"
               "assert img.shape == (128, 128, 3) and 0.0 < float(img.mean()) < 1.0, img.mean()\n"
               "print(qr.__file__); print(qr.__version__)"],
              cwd=work, env=user_env, capture_output=True, text=True).stdout.split()
    assert out[0].startswith(os.path.realpath(env_dir)) or out[0].startswith(env_dir), out
    assert out[1] == version, f"__version__ {out[1]}, CMake's {version}"
    # the command, found on PATH as a user would
    out = run(["quadrender", "--version"], cwd=work, env=user_env,
              capture_output=True, text=True).stdout
    assert out.startswith(f"quadrender {version}"), out
    # the package's tests, against the installed package
    run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", os.path.join(python_dir, "tests")],
        cwd=work, env=user_env)
    print(f"check_wheel: {os.path.basename(wheel)} built from {sdists[0]}, installed and tested")
    return 0


if __name__ == "__main__":
    sys.exit(main())
