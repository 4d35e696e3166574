#!/usr/bin/env python3
"""png_palette.py IN.ppm OUT.png — a binary PPM (P6, 8-bit) to a PNG of at
most 256 colours: the mean colours of the most common 5-bit-per-channel
bins, every pixel mapped to the nearest of them (weighted RGB distance).
Standard library only; for pictures whose noise defeats PNG's filters."""
import struct
import sys
import zlib


def read_ppm(path):
    data = open(path, "rb").read()
    fields, i = [], 0
    while len(fields) < 4:
        while data[i:i + 1].isspace():
            i += 1
        j = i
        while not data[j:j + 1].isspace():
            j += 1
        fields.append(data[i:j])
        i = j
    if fields[0] != b"P6" or fields[3] != b"255":
        sys.exit(f"{path}: not an 8-bit binary PPM")
    w, h = int(fields[1]), int(fields[2])
    return w, h, data[i + 1:i + 1 + w * h * 3]


def palette(px, n, colours=256):
    bins = {}
    for k in range(n):
        r, g, b = px[3 * k], px[3 * k + 1], px[3 * k + 2]
        e = bins.setdefault((r >> 3, g >> 3, b >> 3), [0, 0, 0, 0])
        e[0] += 1
        e[1] += r
        e[2] += g
        e[3] += b
    top = sorted(bins.values(), key=lambda e: -e[0])[:colours]
    return [(e[1] // e[0], e[2] // e[0], e[3] // e[0]) for e in top]


def chunk(kind, body):
    return (struct.pack(">I", len(body)) + kind + body +
            struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    w, h, px = read_ppm(sys.argv[1])
    pal = palette(px, w * h)
    nearest, index = {}, bytearray(w * h)
    for k in range(w * h):
        c = (px[3 * k], px[3 * k + 1], px[3 * k + 2])
        if c not in nearest:
            nearest[c] = min(range(len(pal)), key=lambda j: 3 * (pal[j][0] - c[0]) ** 2 +
                             4 * (pal[j][1] - c[1]) ** 2 + 2 * (pal[j][2] - c[2]) ** 2)
        index[k] = nearest[c]
    rows = b"".join(b"\0" + bytes(index[y * w:(y + 1) * w]) for y in range(h))
    with open(sys.argv[2], "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 3, 0, 0, 0)))
        f.write(chunk(b"PLTE", b"".join(bytes(p) for p in pal)))
        f.write(chunk(b"IDAT", zlib.compress(rows, 9)))
        f.write(chunk(b"IEND", b""))


if __name__ == "__main__":
    main()
