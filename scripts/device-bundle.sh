#!/bin/sh
# Bundle what the GPU machine lacks (it has no package manager) into
# .criterion/ (git-ignored): the Criterion test framework (headers, library,
# and every shared library it loads) from this machine's Debian packages,
# plus libpng and zlib (and libdeflate, if installed, for dev/png_timer)
# headers and libraries. Carry .criterion to the device and configure with
# -DCMAKE_PREFIX_PATH=$PWD/.criterion, LD_LIBRARY_PATH=$PWD/.criterion/lib.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
dest=.criterion
if ! dpkg -s libcriterion-dev >/dev/null 2>&1; then
    echo "device-bundle: libcriterion-dev is not installed (apt-get install libcriterion-dev)" >&2
    exit 1
fi
rm -rf "$dest"
mkdir -p "$dest/include" "$dest/lib/pkgconfig"
cp -r /usr/include/criterion "$dest/include/"
# the runtime library the -dev package's libcriterion.so points to
lib=$(readlink -f "$(dpkg -L libcriterion-dev | grep '/libcriterion\.so$' | head -1)")
cp -L "$lib" "$dest/lib/"
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" {print $2}')
[ -n "$soname" ] && [ "$soname" != "$(basename "$lib")" ] && ln -sf "$(basename "$lib")" "$dest/lib/$soname"
ln -sf "$(basename "$lib")" "$dest/lib/libcriterion.so"
# every library a library loads, except the C library's own and the loader
copy_deps() {
    ldd "$1" | awk '/=>/ {print $3}' | while read -r so; do
        case "$(basename "$so")" in
            libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libresolv.so*|ld-linux*) ;;
            *) cp -L "$so" "$dest/lib/" ;;
        esac
    done
}
copy_deps "$lib"
# write_pc NAME DESCRIPTION DEBIAN_PACKAGE LIB: a pkg-config file for a
# bundled library, its paths relative to the bundle
write_pc() {
    cat > "$dest/lib/pkgconfig/$1.pc" <<PC
prefix=\${pcfiledir}/../..
includedir=\${prefix}/include
libdir=\${prefix}/lib
Name: $1
Description: $2 (bundled)
Version: $(dpkg-query -W -f='${Version}' "$3")
Cflags: -I\${includedir}
Libs: -L\${libdir} -l$4
PC
}
write_pc criterion "Criterion unit testing framework" libcriterion-dev criterion
for h in png.h pngconf.h pnglibconf.h zlib.h zconf.h; do cp -L "/usr/include/$h" "$dest/include/"; done
for l in libpng16.so.16 libz.so.1; do cp -L "/usr/lib/x86_64-linux-gnu/$l" "$dest/lib/"; done
ln -sf libpng16.so.16 "$dest/lib/libpng16.so"
ln -sf libpng16.so.16 "$dest/lib/libpng.so"
ln -sf libz.so.1 "$dest/lib/libz.so"
# libdeflate only for dev/png_timer's comparison, when installed here
# (apt install libdeflate-dev); the product does not use it.
if [ -f /usr/include/libdeflate.h ] && [ -f /usr/lib/x86_64-linux-gnu/libdeflate.so.0 ]; then
    cp -L /usr/include/libdeflate.h "$dest/include/"
    cp -L /usr/lib/x86_64-linux-gnu/libdeflate.so.0 "$dest/lib/"
    ln -sf libdeflate.so.0 "$dest/lib/libdeflate.so"
fi
# libmicrohttpd, for `quadrender view`, when installed here (libmicrohttpd-dev),
# with the libraries it loads
mhd=/usr/lib/x86_64-linux-gnu/libmicrohttpd.so.12
if [ -f /usr/include/microhttpd.h ] && [ -f "$mhd" ]; then
    cp -L /usr/include/microhttpd.h "$dest/include/"
    cp -L "$mhd" "$dest/lib/"
    ln -sf libmicrohttpd.so.12 "$dest/lib/libmicrohttpd.so"
    copy_deps "$mhd"
    write_pc libmicrohttpd "an embedded HTTP server" libmicrohttpd-dev microhttpd
fi
echo "device bundle ready in $dest ($(du -sh "$dest" | cut -f1))"
