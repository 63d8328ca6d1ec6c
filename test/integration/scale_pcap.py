#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Integration: a job of many ranks through acis-switch on net_pcap ports.

P ranks, each at its own IP:port pair (two ranks an address), all behind
port 0 so that the switch takes their messages in the capture's order,
JOIN job 7, run an int32 sum allreduce of CHUNKS chunks on the world
(named by the world alias; each rank's chunks together, so the last
rank's complete every slot in one burst), then split the world into
COLORS communicators: with the world, 1024 at once by default. The capture is replayed once, with no receipts and a long
linger time, so the switch sends every answer exactly once; every rank
must get its JOIN answer, every chunk's RESULT with the right sum, and its
SPLIT answer, and the switch must exit 0 (no abort) having dropped
nothing.

Usage: scale_pcap.py ACIS_SWITCH PIPELINE [--ranks P] [--chunks N]
                     [--colors K] [--mbufs N] [--max-comms N] [--verbose]

The capture's frames are built once with the project's scapy layer and
their fields patched per rank: a quarter of a million scapy packets would
take minutes. doc/reliability.md ("Scale") gives the figures.
"""
import argparse
import array
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from acis.layer import (ACIS_PORT, HDR_LEN, T_CTRL_ACK, T_RESULT, data_chunks,  # noqa: E402
                        join, opcode)
from acis.layer import ACiS  # noqa: E402

from checks import check, summary  # noqa: E402

SW_MAC = bytes.fromhex("02ac15000001")
SW_IP = bytes([10, 77, 0, 1])
NPORTS = 4
JOB = 7
CHUNK = 64          # bytes of a full chunk: small frames, small files
ELEMS = CHUNK // 4  # int32 elements a chunk
WORLD_ID = 65536    # a fresh switch's first communicator: generation 1, index 0
CTRL_SPLIT = 3
ETH_IP_UDP = 14 + 20 + 8



def host_mac(port):
    return bytes([0x02, 0xa1, 0, 0, 0, port])


def host_addr(rank):
    """Rank r: 10.64.0.0 + r // 2, UDP port 40000 + r % 2, behind port 0
    (a router's MAC): one port keeps the messages in order, so no DATA
    comes before the JOINs that make its communicator."""
    a = 0x0A400000 + rank // 2
    return struct.pack("!I", a), 40000 + rank % 2, 0


def ip_csum(h):
    s = sum(struct.unpack("!10H", h))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def udp_csum(src, dst, udp_and_msg):
    """The UDP checksum over the IPv4 pseudo-header (0 is sent as 0xffff)."""
    b = src + dst + struct.pack("!BBH", 0, 17, len(udp_and_msg)) + udp_and_msg
    if len(b) % 2:
        b += b"\0"
    s = sum(array.array("H", b))  # native order; folded and swapped below
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    c = (~s) & 0xFFFF
    if sys.byteorder == "little":
        c = ((c & 0xFF) << 8) | (c >> 8)
    return c or 0xFFFF


def frame(rank, msg, csum=False):
    """Rank's frame of msg; with csum, a UDP checksum (control messages
    need one: the switch refuses them without)."""
    ip, sport, port = host_addr(rank)
    ipl = 20 + 8 + len(msg)
    iph = struct.pack("!BBHHHBBH4s4s", 0x45, 0, ipl, 0, 0x4000, 64, 17, 0, ip, SW_IP)
    iph = iph[:10] + struct.pack("!H", ip_csum(iph)) + iph[12:]
    udp = struct.pack("!HHHH", sport, ACIS_PORT, 8 + len(msg), 0)
    if csum:
        udp = udp[:6] + struct.pack("!H", udp_csum(ip, SW_IP, udp + msg))
    return port, SW_MAC + host_mac(port) + b"\x08\x00" + iph + udp + msg


class PcapOut:
    def __init__(self, path):
        self.f = open(path, "wb")
        self.f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))

    def write(self, b):
        self.f.write(struct.pack("<IIII", 0, 0, len(b), len(b)))
        self.f.write(b)

    def close(self):
        self.f.close()


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return  # the switch died before it flushed the file header
    magic = struct.unpack_from("<I", data, 0)[0]
    e = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack_from(e + "I", data, off + 8)[0]
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def patch(hdr, **f):
    """hdr (bytes of a 54-byte ACiS header) with rank, chunk, comm, seq,
    msg_size (split key) replaced."""
    b = bytearray(hdr)
    for name, off, fmt in (("comm", 12, "!I"), ("rank", 16, "!I"), ("seq", 24, "!I"),
                           ("chunk", 28, "!I"), ("msg_size", 32, "!Q")):
        if name in f:
            struct.pack_into(fmt, b, off, f[name])
    return bytes(b)


def block(rank, chunk):
    return array.array("i", ((rank + chunk * ELEMS + i) & 0xFFFF for i in range(ELEMS))).tobytes()


def expected_sum(p, chunk):
    # sum over r of (r + chunk*ELEMS + i) & 0xFFFF, modulo 2^32, as int32
    out = []
    for i in range(ELEMS):
        base = chunk * ELEMS + i
        # values run base .. base+p-1, wrapping at 2^16
        full, rest = divmod(p, 65536)
        s = full * (65535 * 65536 // 2)
        lo = base & 0xFFFF
        for start, n in ((lo, min(rest, 65536 - lo)), (0, max(0, rest - (65536 - lo)))):
            s += n * start + n * (n - 1) // 2
        out.append(s & 0xFFFFFFFF)
    return array.array("I", out).tobytes()


def split_color(rank, colors):
    return rank % colors


def write_inputs(d, p, chunks, colors):
    outs = [PcapOut(os.path.join(d, f"in{i}.pcap")) for i in range(NPORTS)]
    j = bytes(join(JOB, 0, p))
    for r in range(p):
        port, f = frame(r, patch(j, rank=r), csum=True)
        outs[port].write(f)
    msg_size = chunks * CHUNK
    tmpl = [bytes(m)[:HDR_LEN] for m in data_chunks(b"\0" * msg_size, CHUNK, comm=0, rank=0, seq=0,
                                                     opcode=opcode("allreduce"), dtype=1, op=1, job=JOB)]
    # each rank's chunks together, as a host sends them: the last rank's
    # chunks complete every slot within one burst
    for r in range(p):
        for c in range(chunks):
            port, f = frame(r, patch(tmpl[c], rank=r) + block(r, c))
            outs[port].write(f)
    if colors:
        s = bytes(ACiS(type=5, opcode=CTRL_SPLIT, job=JOB, comm=WORLD_ID, seq=1))
        for r in range(p):
            port, f = frame(r, patch(s, rank=r, chunk=split_color(r, colors), msg_size=p - r),
                            csum=True)
            outs[port].write(f)
    for o in outs:
        o.close()


def pipeline_text(src, mbufs, max_comms):
    with open(src) as f:
        text = f.read()
    if mbufs:
        text = re.sub(r"(?m)^mbufs = \d+$", f"mbufs = {mbufs}", text)
    # no receipts come back: answers are sent once, not again
    text += "\n[collective]\nlinger_ms = 3600000\ndeadline_ms = 3600000\n"
    if max_comms:
        text += f"max_comms = {max_comms}\n"
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("pipeline")
    ap.add_argument("--ranks", type=int, default=65536)
    ap.add_argument("--chunks", type=int, default=3)
    ap.add_argument("--colors", type=int, default=1023)
    ap.add_argument("--mbufs", type=int, default=0)
    ap.add_argument("--max-comms", type=int, default=0)
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="acis-scale-")
    try:
        return run_in(d, a)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def run_in(d, a):
    p, chunks, colors = a.ranks, a.chunks, min(a.colors, a.ranks)
    t0 = time.monotonic()
    write_inputs(d, p, chunks, colors)
    t1 = time.monotonic()
    pl = os.path.join(d, "scale.ini")
    with open(pl, "w") as f:
        f.write(pipeline_text(a.pipeline, a.mbufs, a.max_comms))
    env = dict(os.environ, ACIS_PCAP_DIR=d)
    run = subprocess.run([a.binary, "-l", "0", "--no-huge", "-m", "1024", "--no-shconf", "--no-pci",
                          "--no-telemetry", "--log-level=error", "--", "--pipeline", pl,
                          "--idle-exit", "1"], env=env, capture_output=True, text=True, timeout=300)
    t2 = time.monotonic()
    if a.verbose or run.returncode != 0:
        print(run.stdout)
        print(run.stderr)
    print(f"# P={p} chunks={chunks} colors={colors}: inputs written in {t1 - t0:.1f} s, "
          f"switch ran {t2 - t1:.1f} s (1 s of it idle before exit)")
    check(f"switch exits 0 after replaying {p} JOINs, {p * chunks} DATA and {p if colors else 0} SPLITs "
          f"(exit status {run.returncode})", run.returncode == 0)

    want = [expected_sum(p, c) for c in range(chunks)]
    joined = bytearray(p)
    results_ok = bytearray(p * chunks)
    split_ok = bytearray(p)
    split_id = {}  # rank: the new communicator its SPLIT answer names
    bad, extra = [], 0
    for port in range(NPORTS):
        path = os.path.join(d, f"out{port}.pcap")
        if not os.path.exists(path):
            continue
        for f in read_pcap(path):
            if len(f) < ETH_IP_UDP + HDR_LEN or f[23] != 17:
                extra += 1
                continue
            ip = struct.unpack_from("!I", f, 30)[0]
            dport = struct.unpack_from("!H", f, 36)[0]
            rank = (ip - 0x0A400000) * 2 + (dport - 40000)
            h = f[ETH_IP_UDP:ETH_IP_UDP + HDR_LEN]
            typ, opc = h[1], h[2]
            comm, hrank, root, seq, chunk = struct.unpack_from("!IIIII", h, 12)
            plen, status = struct.unpack_from("!H", h, 40)[0], struct.unpack_from("!H", h, 46)[0]
            pay = f[ETH_IP_UDP + HDR_LEN:ETH_IP_UDP + HDR_LEN + plen]
            if not 0 <= rank < p or host_addr(rank)[2] != port:
                bad.append(f"frame to an unknown host {ip:#x}:{dport} on port {port}")
                continue
            if typ == T_CTRL_ACK and opc == 1 and status == 0 and comm == WORLD_ID and hrank == rank:
                extra += joined[rank]
                joined[rank] = 1
            elif typ == T_RESULT and comm == WORLD_ID and seq == 0 and chunk < chunks and hrank == rank:
                if pay != want[chunk]:
                    bad.append(f"rank {rank} chunk {chunk}: wrong sum")
                extra += results_ok[rank * chunks + chunk]
                results_ok[rank * chunks + chunk] = 1
            elif (typ == T_CTRL_ACK and opc == CTRL_SPLIT and status == 0 and hrank == rank and colors
                  and root == len(range(split_color(rank, colors), p, colors))):
                # ordered by key (p - rank): the highest parent rank first
                mine = list(range(split_color(rank, colors), p, colors))
                if chunk != len(mine) - 1 - mine.index(rank):
                    bad.append(f"rank {rank}: split rank {chunk}")
                extra += split_ok[rank]
                split_ok[rank] = 1
                split_id[rank] = struct.unpack_from("!Q", h, 32)[0]  # msg_size: new_comm
            else:
                bad.append(f"rank {rank}: unexpected type {typ} opcode {opc} status {status} "
                           f"comm {comm} seq {seq} chunk {chunk}")
    n_join, n_res, n_split = sum(joined), sum(results_ok), sum(split_ok)
    check(f"every rank got its JOIN answer ({n_join} of {p})", n_join == p)
    check(f"every rank got every chunk's RESULT ({n_res} of {p * chunks})", n_res == p * chunks)
    if colors:
        check(f"every rank got its SPLIT answer into one of {colors} communicators ({n_split} of {p})",
              n_split == p)
        ids = {}  # color: the ids its members were told
        for rank, cid in split_id.items():
            ids.setdefault(split_color(rank, colors), set()).add(cid)
        named = [next(iter(v)) for v in ids.values() if len(v) == 1]
        check(f"the members of a color share one new communicator, each color its own "
              f"({len(set(named))} ids for {len(ids)} colors)",
              len(named) == len(ids) and len(set(named)) == len(ids)
              and WORLD_ID not in named and 0 not in named)
    check(f"every answer right and addressed to its rank ({len(bad)} wrong{': ' + bad[0] if bad else ''})",
          not bad)
    check(f"no answer sent twice, nothing else sent ({extra} extra)", extra == 0)
    drops = dict(re.findall(r"(\w+)=(\d+)", (re.findall(r"^drops:.*$", run.stdout, re.M) or [""])[0]))
    check(f"nothing dropped (drops: {drops.get('total')})", drops.get("total") == "0")
    coll = (re.findall(r"^collective:.*$", run.stdout, re.M) or [""])[0]
    if coll:
        print("# " + coll)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
