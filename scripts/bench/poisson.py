#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Poisson UDP traffic with one-way delays, for scripts/bench/load.sh.

  poisson.py send DST PORT --rate PPS --seconds S [--size fixed:BYTES |
                                                   exp:MEAN] [--seed N]
  poisson.py recv PORT --seconds S [--csv]
  poisson.py bits [--size SPEC]

send: UDP datagrams to DST:PORT, their start times a Poisson process of
PPS a second (exponential gaps, scheduled on absolute times so a late
wake-up does not slow the process), for S seconds. Each carries its
sequence number and the time it was sent (CLOCK_REALTIME, ns, taken just
before the send). --size fixed:BYTES gives every frame BYTES bytes
(Ethernet header to the end of the payload, without FCS; at least 58);
exp:MEAN gives frames of 58 bytes plus an exponential number of MEAN
bytes on average, cut at 1514.

recv: counts and times what arrives on PORT for S seconds (from the
first datagram) or until a datagram says the sender is done. A delay is
the kernel's receive time (SO_TIMESTAMPNS) less the send time: both
hosts are namespaces of one machine, with one clock. Prints the number
received and lost, the delays' mean, median, 99th percentile and
maximum (us), and the frames' mean wire bits and the squared
coefficient of variation of their wire time (what a queue's wait depends
on: 0 for fixed sizes, 1 for exponential service). A frame's wire bits
count the 24 bytes of preamble, FCS and gap and pad to 60 bytes, as
acis-switch's shaper charges them (doc/faults.md).

bits: the mean wire bits of a frame of --size (by sampling), to choose
the rate that loads a link of a given line rate to a given utilisation.
"""
import argparse
import ctypes
import random
import socket
import struct
import sys
import time

HDR = 14 + 20 + 8          # Ethernet, IPv4, UDP
MIN_FRAME = HDR + 16       # our 16 bytes: sequence, send time
MAX_FRAME = 1514
DONE = 0xFFFFFFFFFFFFFFFF  # the sequence of the last datagram
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


def wire_bits(frame):
    return (max(frame, 60) + 24) * 8


def size_of(spec):
    kind, _, val = spec.partition(":")
    try:
        v = float(val)
    except ValueError:
        v = -1
    if kind == "fixed" and MIN_FRAME <= v <= MAX_FRAME and v == int(v):
        return lambda rng: int(v)
    if kind == "exp" and v > 0:
        return lambda rng: min(MAX_FRAME, MIN_FRAME + int(round(rng.expovariate(1.0 / v))))
    sys.exit(f"poisson: --size {spec}: expected fixed:BYTES ({MIN_FRAME}..{MAX_FRAME}) or exp:MEAN (> 0)")


def send(a):
    if a.rate <= 0 or a.seconds <= 0:
        sys.exit("poisson: --rate and --seconds: expected more than 0")
    rng = random.Random(a.seed)
    size = size_of(a.size)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    pad = bytes(MAX_FRAME)
    try:  # sleep to the microsecond: the default timer slack is 50 us
        ctypes.CDLL(None, use_errno=True).prctl(29, 1000, 0, 0, 0)  # PR_SET_TIMERSLACK
    except (OSError, AttributeError):
        pass
    t0 = time.monotonic()
    due, n, end = t0, 0, t0 + a.seconds
    while True:
        due += rng.expovariate(a.rate)
        if due >= end:
            break
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        frame = size(rng)
        s.sendto(struct.pack("!QQ", n, time.time_ns()) + pad[:frame - MIN_FRAME],
                 (a.dst, a.port))
        n += 1
    time.sleep(0.2)  # the last frames drain before the receiver stops
    for _ in range(3):
        s.sendto(struct.pack("!QQ", DONE, n), (a.dst, a.port))
    print(f"sent {n} in {time.monotonic() - t0:.2f} s")


def recv(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind(("0.0.0.0", a.port))
    s.settimeout(a.seconds)
    delays, bits, seen, sent = [], [], set(), None
    deadline = None
    while deadline is None or time.monotonic() < deadline:
        try:
            data, anc, _, _ = s.recvmsg(2048, 64)
        except socket.timeout:
            break
        if deadline is None:
            deadline = time.monotonic() + a.seconds
        if len(data) < 16:
            continue
        seq, t = struct.unpack("!QQ", data[:16])
        if seq == DONE:
            sent = t
            break
        rx = None
        for lvl, typ, val in anc:
            if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", val[:16])
                rx = sec * 1000000000 + nsec
        if rx is None or seq in seen:
            continue
        seen.add(seq)
        delays.append((rx - t) / 1000.0)
        bits.append(wire_bits(HDR + len(data)))
    if not delays:
        sys.exit("poisson: nothing received")
    delays.sort()
    n = len(delays)
    mean = sum(delays) / n
    mb = sum(bits) / n
    # the wire time's squared coefficient of variation: Var(S) / E[S]^2
    cv2 = sum((b - mb) ** 2 for b in bits) / n / (mb * mb)
    lost = (sent - n) if sent is not None else -1
    row = {"received": n, "lost": lost, "mean_us": mean,
           "p50_us": delays[n // 2], "p99_us": delays[min(n - 1, int(n * 0.99))],
           "max_us": delays[-1], "bits": mb, "cv2": cv2}
    if a.csv:
        print(",".join(row))
        print(",".join(f"{v:.4f}" if isinstance(v, float) else str(v) for v in row.values()))
    else:
        for k, v in row.items():
            print(f"{k:<10} {v:.4f}" if isinstance(v, float) else f"{k:<10} {v}")
    return 0 if lost <= 0 or lost < n else 1


def bits(a):
    rng = random.Random(a.seed)
    size = size_of(a.size)
    n = 200000
    print(f"{sum(wire_bits(size(rng)) for _ in range(n)) / n:.1f}")
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[2:]))
    sub = ap.add_subparsers(dest="cmd", required=True)
    x = sub.add_parser("send")
    x.add_argument("dst")
    x.add_argument("port", type=int)
    x.add_argument("--rate", type=float, required=True)
    x.add_argument("--seconds", type=float, required=True)
    x.add_argument("--size", default=f"fixed:{MIN_FRAME}")
    x.add_argument("--seed", type=int, default=1)
    x = sub.add_parser("recv")
    x.add_argument("port", type=int)
    x.add_argument("--seconds", type=float, required=True)
    x.add_argument("--csv", action="store_true")
    x = sub.add_parser("bits")
    x.add_argument("--size", default=f"fixed:{MIN_FRAME}")
    x.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    if a.cmd == "bits":
        return bits(a)
    if not 0 < a.port < 65536:
        sys.exit(f"poisson: port {a.port}: expected 1..65535")
    return send(a) if a.cmd == "send" else recv(a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
