#!/bin/sh
# Bundle what the GPU machine lacks (it has no package manager): Criterion via
# the shared tool, plus libpng and zlib (and libdeflate, if installed, for
# dev/png_timer) headers and libraries, all in
# .criterion/ (git-ignored). Carry .criterion to the device and configure with
# -DCMAKE_PREFIX_PATH=$PWD/.criterion, LD_LIBRARY_PATH=$PWD/.criterion/lib.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
sh ../shared/tools/criterion-bundle.sh .criterion
for h in png.h pngconf.h pnglibconf.h zlib.h zconf.h; do cp -L "/usr/include/$h" .criterion/include/; done
for l in libpng16.so.16 libz.so.1; do cp -L "/usr/lib/x86_64-linux-gnu/$l" .criterion/lib/; done
ln -sf libpng16.so.16 .criterion/lib/libpng16.so
ln -sf libpng16.so.16 .criterion/lib/libpng.so
ln -sf libz.so.1 .criterion/lib/libz.so
# libdeflate only for dev/png_timer's comparison, when installed here
# (apt install libdeflate-dev); the product does not use it.
if [ -f /usr/include/libdeflate.h ] && [ -f /usr/lib/x86_64-linux-gnu/libdeflate.so.0 ]; then
    cp -L /usr/include/libdeflate.h .criterion/include/
    cp -L /usr/lib/x86_64-linux-gnu/libdeflate.so.0 .criterion/lib/
    ln -sf libdeflate.so.0 .criterion/lib/libdeflate.so
fi
echo "device bundle ready in .criterion ($(du -sh .criterion | cut -f1))"
