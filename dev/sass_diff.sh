#!/bin/bash
# Compares the machine code of two builds' CUDA objects, kernel by kernel:
# cuobjdump -sass of every .cu.o under each build's quadrender_objects,
# matched by file name (a file moved to another folder still matches; an
# object with no kernels on one side only is host code, not compared),
# addresses and the ELF's section offsets stripped. Prints the files whose
# SASS differs and exits 1 if any does. Build both trees for one
# architecture first, e.g.
#   cmake -S BASE -B build-a -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF
#   cmake --build build-a --target quadrender_objects
# A file renamed between the two: RENAMES="old.cu:new.cu ...".
# Usage: [RENAMES=...] dev/sass_diff.sh BUILD_A BUILD_B
set -euo pipefail
a=$1 b=$2
command -v cuobjdump > /dev/null || PATH=$PATH:${CUDA_HOME:-/usr/local/cuda}/bin
command -v cuobjdump > /dev/null || { echo "cuobjdump not found (the CUDA toolkit's bin/)" >&2; exit 2; }
sass() { cuobjdump -sass "$1" | sed -E 's@/\*[0-9a-f]{4,}\*/@@; s@[[:space:]]+$@@' | grep -v '^[[:space:]]*$' | grep -v 'Fatbin\|^code for\|arch = \|identifier = \|host = \|compile_size'; }
declare -A pa pb
while read -r f; do pa[$(basename "$f")]=$f; done < <(find "$a/src/CMakeFiles/quadrender_objects.dir" -name '*.cu.o')
declare -A ren
for r in ${RENAMES:-}; do ren[${r#*:}.o]=${r%%:*}.o; done
while read -r f; do k=$(basename "$f"); pb[${ren[$k]:-$k}]=$f; done < <(find "$b/src/CMakeFiles/quadrender_objects.dir" -name '*.cu.o')
bad=0 same=0
for k in "${!pa[@]}"; do
    if [ -z "${pb[$k]:-}" ]; then
        [ -z "$(sass "${pa[$k]}")" ] || { echo "only in $a: $k"; bad=1; }
        continue
    fi
    if diff -q <(sass "${pa[$k]}") <(sass "${pb[$k]}") > /dev/null; then
        same=$((same + 1))
    else
        echo "SASS differs: $k"; bad=1
    fi
done
for k in "${!pb[@]}"; do
    [ -n "${pa[$k]:-}" ] || [ -z "$(sass "${pb[$k]}")" ] || { echo "only in $b: $k"; bad=1; }
done
echo "$same objects with the same SASS"
exit $bad
