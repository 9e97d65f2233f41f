#!/usr/bin/env python3
# Writes the scene decoder's seed corpus (corpus/scene_decoder/*.bin):
# valid command streams (protocol/vitrail-scene-v1.xml, "Command stream")
# preceded by one byte, the saves open before the stream (fuzz_scene_decoder.c).
# Run from tests/fuzz/ after changing the stream format.
import struct

def rec(op, payload):
    payload += b'\0' * (-len(payload) % 4)
    return struct.pack('<HHI', op, 0, 8 + len(payload)) + payload

def paint(color=0xff3060c0, stroke=0.0, join=0, cap=0, rule=0, miter=0.0):
    return struct.pack('<IfBBBBf', color, stroke, join, cap, rule, 0, miter)

def f(*v):
    return struct.pack('<%df' % len(v), *v)

def path(verbs, points, p):
    vb = bytes(verbs) + b'\0' * (-len(verbs) % 4)
    return rec(5, p + struct.pack('<II', len(verbs), len(points) // 2) + vb +
               f(*points))

def text(x, y, color, size, weight, family, s):
    fam, txt = family.encode(), s.encode()
    return rec(7, f(x, y) + struct.pack('<IfIII', color, size, weight,
               len(fam), len(txt)) + fam + txt)

seeds = {
    'shapes': bytes([0]) + rec(1, f(0, 0, 100, 50) + paint()) +
        rec(2, f(10, 10, 80, 30) + f(4, 4, 4, 4) + paint(0x80ffffff)) +
        rec(3, f(0, 0, 20, 20) + paint(0xff00ff00, 2.0, 1, 1)) +
        rec(4, f(0, 0, 100, 100) + paint(0xff000000, 1.5, 2, 2, 0, 4.0)),
    'state': bytes([0]) + rec(8, b'') + rec(10, f(5, 6)) + rec(11, f(2, 0.5)) +
        rec(12, f(0.7)) + rec(13, f(0, 0, 50, 50)) +
        rec(14, f(0, 0, 40, 40) + f(8, 8, 8, 8)) +
        rec(15, f(0, 0, 30, 30) + f(3, 3, 3, 3) + f(6) +
            struct.pack('<I', 0x80000000)) + rec(9, b''),
    'path': bytes([0]) + path([0, 1, 2, 3, 4], [0, 0, 10, 0, 20, 10, 20, 20,
        15, 25, 10, 30, 5, 25], paint(0xffff0000, 0, 0, 0, 1)),
    'text-image': bytes([0]) + text(10, 30, 0xff202020, 16, 400,
        'DejaVu Sans', 'Hello, vitrail') + text(10, 60, 0xff202020, 24, 700,
        'DejaVu Serif', 'caf\u00e9 \u2603') +
        rec(6, struct.pack('<I', 2) + f(1.0) + f(0, 0, 32, 32) +
            f(0, 0, 64, 64)) +
        rec(6, struct.pack('<I', 4) + f(0.5) + f(0, 0, 0, 0) +
            f(10, 10, 30, 20)),
    'restore-open': bytes([2]) + rec(9, b'') + rec(1, f(1, 2, 3, 4) +
        paint()) + rec(9, b''),
}
for name, data in seeds.items():
    with open('corpus/scene_decoder/%s.bin' % name, 'wb') as out:
        out.write(data)
