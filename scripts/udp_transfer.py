#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A short, checked UDP transfer between two testbed hosts.

  udp_transfer.py recv PORT COUNT [TIMEOUT]   prints "received N/COUNT ok=K"
  udp_transfer.py send HOST PORT COUNT [SIZE]

Every datagram carries its sequence number and a payload derived from it,
so the receiver checks content, not just arrival. Sizes vary up to SIZE.
"""
import hashlib
import socket
import struct
import sys
import time


def build(seq, n):
    body = hashlib.sha256(struct.pack("!I", seq)).digest()
    return (struct.pack("!II", seq, n) + body * (n // 32 + 1))[:n]


def payload(seq, size):
    return build(seq, 8 + (seq * 37) % max(1, size - 7))


def recv(port, count, timeout):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(("0.0.0.0", port))
    s.settimeout(0.5)
    seen, ok, end = set(), 0, time.time() + timeout
    while len(seen) < count and time.time() < end:
        try:
            data, _ = s.recvfrom(65535)
        except socket.timeout:
            continue
        if len(data) < 8:
            continue
        seq, n = struct.unpack("!II", data[:8])
        if seq in seen:
            continue
        seen.add(seq)
        if len(data) == n and data == build(seq, n):
            ok += 1
    print(f"received {len(seen)}/{count} ok={ok}")
    return 0 if ok == count else 1


def send(host, port, count, size):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for seq in range(count):
        s.sendto(payload(seq, size), (host, port))
        if seq % 64 == 63:
            time.sleep(0.002)  # stay under the veth/AF_PACKET queues
    print(f"sent {count}")
    return 0


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) >= 3 and a[0] == "recv":
        sys.exit(recv(int(a[1]), int(a[2]), float(a[3]) if len(a) > 3 else 10))
    if len(a) >= 4 and a[0] == "send":
        sys.exit(send(a[1], int(a[2]), int(a[3]), int(a[4]) if len(a) > 4 else 1400))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
