#!/bin/sh
# scene_pictures.sh — the pictures of docs/scenes.md's non-uniform scenes:
# each rendered at 256 x 256 by the CPU renderer, written at PNG level 9;
# a scene whose speckle of tiny circles does not compress under 150 KB that
# way is reduced to 256 colours (dev/png_palette.py) to keep the repository
# small. Usage: dev/scene_pictures.sh BUILD_DIR (run from the repository root).
set -eu
qr="${1:?usage: dev/scene_pictures.sh BUILD_DIR}/quadrender"
for s in clusters spiral powerlaw hotspot roads ring; do
    out="docs/img/scene-$s.png"
    "$qr" render "$s" -s 256 --device cpu --png-level 9 -q -o "$out"
    if [ "$(wc -c < "$out")" -ge 150000 ]; then
        tmp="${TMPDIR:-/tmp}/scene-$s.$$.ppm"
        "$qr" render "$s" -s 256 --device cpu -q -o "$tmp"
        python3 dev/png_palette.py "$tmp" "$out"
        rm -f "$tmp"
    fi
    echo "$out: $(wc -c < "$out") bytes"
done
