#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A job that floods the switch, for scripts/bench/share.sh.

  flood.py SWITCH_IP JOB [PORT]

Joins a job of two ranks (two UDP sockets of this host), then rank 0
sends allreduce DATA of 1416 bytes, a new collective each time, as fast
as it can: rank 1 never contributes, so every one opens a slot that never
completes, and the switch refuses the rest BUSY. With PORT (not the ACiS
port) the same frames go to a UDP port the switch does not serve, after
the JOIN: the cost of receiving the flood without the collective stage.
Runs until killed; prints what it sent on SIGTERM or SIGINT.
"""
import signal
import socket
import struct
import sys
import time

ACIS_PORT = 47000
T_DATA, T_CTRL = 1, 5
CTRL_JOIN = 1
ALLREDUCE, FLOAT32, SUM = 1, 5, 1
CHUNK = 1416


def hdr(typ, opcode, job, comm, rank, root, seq, msg_size, plen, dtype=0,
        op=0, chunk_size=0, flags=0):
    return struct.pack("!BBBBBBHIIIIIIQHHHH", 1, typ, opcode, flags, dtype,
                       op, 54, job, comm, rank, root, seq, 0, msg_size, plen,
                       chunk_size, 1, 0) + bytes(6)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    sw, job = argv[1], int(argv[2])
    port = int(argv[3]) if len(argv) > 3 else ACIS_PORT
    socks = []
    for r in range(2):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("", 0))
        s.settimeout(0.2)
        socks.append(s)
    comm = None
    for _ in range(100):
        for r, s in enumerate(socks):
            s.sendto(hdr(T_CTRL, CTRL_JOIN, job, 0, r, 2, 0, 0, 0),
                     (sw, ACIS_PORT))
        try:
            d = socks[0].recv(2048)
            if len(d) >= 54 and d[1] == 6 and d[2] == CTRL_JOIN:
                status = struct.unpack("!H", d[46:48])[0]
                if status != 0:
                    sys.exit("flood: JOIN refused, status %d" % status)
                comm = struct.unpack("!I", d[12:16])[0]
                break
        except socket.timeout:
            pass
    if comm is None:
        sys.exit("flood: no answer to JOIN from %s" % sw)
    sent = [0]

    t0 = time.monotonic()

    def stop(sig, frame):
        t = time.monotonic() - t0
        print("flood: job %d comm %d, %d DATA sent to port %d in %.1f s "
              "(%.0f a second)" % (job, comm, sent[0], port, t,
                                   sent[0] / t), flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    payload = bytes(CHUNK)
    s = socks[0]
    s.setblocking(False)
    dst = (sw, port)
    seq = 0
    while True:
        m = hdr(T_DATA, ALLREDUCE, job, comm, 0, 0xffffffff, seq, CHUNK,
                CHUNK, FLOAT32, SUM, CHUNK, 0x02) + payload
        try:
            s.sendto(m, dst)
            sent[0] += 1
            seq += 1
        except BlockingIOError:
            pass


if __name__ == "__main__":
    main(sys.argv)
