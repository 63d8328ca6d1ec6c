#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Malformed and mutated ACiS frames at a switch, from a testbed host.

  wirefuzz.py IFACE SWITCH_IP SWITCH_MAC JOB COMM FRAMES SECONDS SEED \
              IP:PORT:MAC...

Each frame starts as a well-formed message of the running job (DATA,
ACK, NACK, every CTRL, LOOKASIDE) in a member's name or this host's own,
with a random cookie (the members' are unknown here), then goes through
one or more of: bits flipped anywhere past Ethernet, header fields set
to random or edge values, the frame cut short or padded, the UDP or IP
checksum wrong or absent, one or two VLAN tags, a fragment flag, IP
options. Frames are seeded: the same SEED sends the same frames. Stops after
FRAMES frames, SECONDS seconds or SIGTERM; prints how many it sent (and
the count so far every half second).
"""
import os
import random
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from forge import csum, mac  # noqa: E402

ACIS_PORT = 47000
EDGES32 = [0, 1, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 65535, 65536]
EDGES16 = [0, 1, 53, 54, 55, 1416, 1418, 8918, 0x7fff, 0x8000, 0xffff]


def header(rnd, job, comm, rank):
    typ = rnd.choice([1, 1, 1, 3, 4, 5, 7, rnd.randrange(256)])
    coll = rnd.randrange(1, 9)
    opcode = {5: rnd.randrange(1, 6)}.get(typ, coll | rnd.choice([0, 0, 1, 4]) << 4)
    dtype = rnd.randrange(0, 14)
    op = rnd.randrange(0, 9)
    seq = rnd.randrange(0, 64)
    msg_size = rnd.choice([0, 4, 64, 1416, 4096, 70000, 1 << 40, (1 << 64) - 1])
    chunk_size = rnd.choice([1416, 1408, 8, 0, 7])
    plen = rnd.choice([0, 4, 8, 64, 1416])
    auth = rnd.getrandbits(48)
    return [1, typ, opcode, rnd.choice([0, 1, 2, 4, 8]), dtype, op, 54, job,
            rnd.choice([comm, 0, comm + 1, rnd.getrandbits(32)]), rank,
            rnd.choice([0xffffffff, 0, 1, 3, 4]), seq, rnd.randrange(0, 70),
            msg_size, plen, chunk_size, 1, rnd.randrange(0, 16), auth]


def encode(f):
    return struct.pack("!BBBBBBHIIIIIIQHHHH", *[v & m for v, m in zip(
        f[:18], [0xff] * 6 + [0xffff] + [0xffffffff] * 6 +
        [(1 << 64) - 1] + [0xffff] * 4)]) + (f[18] & ((1 << 48) - 1)
                                            ).to_bytes(6, "big")


def frame(rnd, src_mac, dst_mac, src_ip, dst_ip, sport, data):
    ihl = 5
    opts = b""
    if rnd.random() < 0.05:
        opts = bytes([1] * 4)  # NOPs: an IP header with options
        ihl = 6
    udp_len = 8 + len(data)
    frag = rnd.choice([0x4000] * 20 + [0x2000, 0x0001])
    ip = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, 4 * ihl + udp_len, 0,
                     frag, 64, 17, 0, src_ip, dst_ip) + opts
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    udp = struct.pack("!HHHH", sport, ACIS_PORT, udp_len, 0)
    c = rnd.random()
    if c < 0.8:
        cs = csum(src_ip + dst_ip + struct.pack("!BBH", 0, 17, udp_len) +
                  udp + data) or 0xffff
    elif c < 0.9:
        cs = 0
    else:
        cs = rnd.randrange(65536)
    udp = udp[:6] + struct.pack("!H", cs)
    eth_type = b"\x08\x00"
    tags = b""
    t = rnd.random()
    if t < 0.05:
        tags = b"\x81\x00" + struct.pack("!H", rnd.randrange(4096))
    elif t < 0.08:
        tags = b"\x88\xa8\x00\x0a\x81\x00\x00\x14"
    return dst_mac + src_mac + tags + eth_type + ip + udp + data


def mutate(rnd, f):
    b = bytearray(f)
    for _ in range(rnd.choice([0, 0, 1, 1, 2, 3])):
        what = rnd.random()
        if what < 0.5 and len(b) > 14:
            for _ in range(rnd.randrange(1, 9)):
                i = rnd.randrange(14, len(b))
                b[i] ^= 1 << rnd.randrange(8)
        elif what < 0.7:
            b = b[:rnd.randrange(0, len(b) + 1)]
        elif what < 0.8:
            b += os.urandom(rnd.randrange(1, 64))
        elif len(b) > 42 + 54:
            # a header field's first two bytes, at random, to an edge
            # value (a 16-bit field whole, a 32-bit one its high half)
            off = 42 + rnd.choice([6, 8, 12, 16, 20, 24, 28, 40, 42, 44])
            v = rnd.choice(EDGES16 if off in (48, 82, 84, 86) else EDGES32)
            b[off:off + 2] = struct.pack("!H", v & 0xffff)
    return bytes(b)


def main(argv):
    if len(argv) < 10:
        sys.exit(__doc__)
    iface, sw_ip, sw_mac = argv[1], socket.inet_aton(argv[2]), mac(argv[3])
    job, comm, n = int(argv[4]), int(argv[5]), int(argv[6])
    end = time.monotonic() + float(argv[7])
    next_report = time.monotonic() + 0.5
    seed = int(argv[8])
    members = []
    for m in argv[9:]:
        ip, port, hw = m.split(":", 2)
        members.append((socket.inet_aton(ip), int(port)))
    rnd = random.Random(seed)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    me = s.getsockname()[4]
    sent = 0

    def stop(sig, frame):
        # straight to the file and out: nothing buffered or raised can
        # lose the count (the test reads it from this line)
        os.write(1, b"frames %d\n" % sent)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    for i in range(n):
        if i % 256 == 0:
            now = time.monotonic()
            if now > end:
                break
            if now >= next_report:
                # the count so far, should the end not come by SIGTERM
                os.write(1, b"frames %d\n" % sent)
                next_report = now + 0.5
        rank = rnd.randrange(len(members) + 1)
        if rank < len(members):
            src_ip, sport = members[rank]
        else:
            # this host's own address (10.77.0.14 on the testbed)
            src_ip, sport = members[0][0][:3] + bytes([14]), 40000
        h = header(rnd, job, comm, min(rank, len(members) - 1))
        plen = h[14] if rnd.random() < 0.9 else rnd.randrange(0, 2000)
        data = encode(h) + os.urandom(min(plen, 1418))
        f = mutate(rnd, frame(rnd, me, sw_mac, src_ip, sw_ip, sport, data))
        if len(f) < 14:
            f = f + bytes(14 - len(f))
        try:
            s.send(f[:1514])
            sent += 1
        except OSError:
            pass
    os.write(1, b"frames %d\n" % sent)


if __name__ == "__main__":
    main(sys.argv)
