#!/usr/bin/python3
"""mkpng.py OUT WIDTH HEIGHT rgb|rgba - a PNG for the test of
headless.png_counts (tests/lit/outputs/headless.test): pixel (x, y) is
colour (x // 2 + y) % 3 of three whose bytes make the filters wrap
around 0 and 255, and row y is stored with filter y % 5 (None, Sub, Up,
Average, Paeth: Chromium's screenshots use three of them), encoded here
by the book (PNG spec, section 9), so that a decoder that undoes one of
them wrongly miscounts."""

import struct
import sys
import zlib

COLOURS = [(250, 3, 128), (7, 251, 200), (129, 127, 1)]


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body \
        + struct.pack(">I", zlib.crc32(kind + body))


def main():
    out, w, h, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    bpp = 4 if mode == "rgba" else 3
    prev, data = bytes(w * bpp), b""
    for y in range(h):
        row = b"".join(bytes(COLOURS[(x // 2 + y) % 3])
                       + (bytes([(x * 37 + y) % 256]) if bpp == 4 else b"")
                       for x in range(w))
        f, enc = y % 5, bytearray()
        for i, v in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][f]
            enc.append((v - pred) & 255)
        data += bytes([f]) + bytes(enc)
        prev = row
    with open(out, "wb") as o:
        o.write(b"\x89PNG\r\n\x1a\n"
                + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8,
                                             6 if bpp == 4 else 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(data)) + chunk(b"IEND", b""))


main()
