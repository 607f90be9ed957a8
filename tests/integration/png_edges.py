#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""png_edges.py PNG...: name each PNG whose outermost pixels are not all the
background (the colour of the top-left pixel). gnuplot leaves a margin round
every figure; text or a line that reaches the edge was cut off there. Decodes
8-bit greyscale/RGB/RGBA/palette non-interlaced PNGs with zlib alone, so the
test needs no imaging library. Exit 0 when every edge is clean, 1 when one is
not, 2 when a file cannot be decoded."""
import struct
import sys
import zlib

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def unfilter(raw, w, h, bpp):
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        ft, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            elif ft != 0:
                raise ValueError("bad filter %d" % ft)
        rows.append(bytes(line))
        prev = line
    return rows


def decode(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, pal = 8, b"", None
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", body)
        elif typ == b"PLTE":
            pal = body
        elif typ == b"IDAT":
            idat += body
        elif typ == b"IEND":
            break
    if depth != 8 or inter or ctype not in CHANNELS:
        raise ValueError("unsupported PNG (depth %d, type %d, interlace %d)"
                         % (depth, ctype, inter))
    bpp = CHANNELS[ctype]
    rows = unfilter(zlib.decompress(idat), w, h, bpp)

    def px(x, y):
        p = rows[y][x * bpp:(x + 1) * bpp]
        if ctype == 3:
            return pal[p[0] * 3:p[0] * 3 + 3]
        return p[:1] * 3 if ctype in (0, 4) else p[:3]
    return w, h, px


def edge_clean(path):
    w, h, px = decode(path)
    bg = px(0, 0)
    edge = [(x, y) for x in range(w) for y in (0, h - 1)]
    edge += [(x, y) for y in range(h) for x in (0, w - 1)]
    bad = [(x, y) for x, y in edge if px(x, y) != bg]
    return bad


def main():
    rc = 0
    for path in sys.argv[1:]:
        try:
            bad = edge_clean(path)
        except (ValueError, OSError, zlib.error, struct.error, UnboundLocalError) as e:
            print("%s: cannot decode: %s" % (path, e))
            return 2
        if bad:
            print("%s: %d edge pixels not background, first at %s" % (path, len(bad), bad[0]))
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
