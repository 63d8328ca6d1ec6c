#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Integration: the scapy layer (python/acis/layer.py) against lib/proto.

- Frames of every type, collective, algorithm, datatype, op, flag, status,
  control operation and payload kind are written by dissector_frames (the
  C encoder, acis_hdr_encode()); scapy must read every header field as
  written, give each structured payload its layer, and build, from the
  same fields (as numbers and as names), the same bytes, frame for frame.
- The layer's status names are lib/proto's enum, every one read and
  built by name in a CTRL_ACK; its collectives are enum acis_coll's,
  each an opcode by its name.
- acis_pcap.py's files read back with rdpcap: JOINs, DATA chunks and
  receipts with their fields; bind_port() for a switch on another port.
- Malformed and truncated messages, and random bytes, on the ACiS port:
  dissected (ACiSTruncated or Raw where the header says nothing more)
  without an exception, with scapy's dissector errors made fatal.
- acis-switch on net_pcap ports (pipelines/pcap.ini) takes what the
  layer's helpers build: two ranks JOIN and allreduce, one without a
  cookie and one with; the CTRL_ACKs and RESULTs it writes answer() the
  requests, with the sums, each carrying its rank's cookie.
Usage: scapy_layer.py DISSECTOR_FRAMES ACIS_SWITCH PCAP_PIPELINE
"""
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..", "..", "python")))

from scapy.config import conf  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.utils import PcapWriter, RawPcapReader, rdpcap  # noqa: E402

from acis.layer import (ACiS, ACiSKeys, ACiSMissingRanks, ACiSPacked,  # noqa: E402
                        ACiSTruncated, COLLS, C_FUSED, CTX_WORLD, DTYPE_NAMES,
                        FLAG_NAMES, FUSED_PATTERNS,
                        OPS, STATUSES, TYPES, bind_port, data_chunks, join,
                        lookaside, opcode, opcode_name, receipts)

from checks import check, summary  # noqa: E402

ACIS_PCAP = os.path.join(HERE, "..", "..", "scripts", "pktgen", "acis_pcap.py")
PROTO_H = os.path.join(HERE, "..", "..", "lib", "proto", "acis_proto.h")
# the header as dissector_frames.c names its fields, in wire order
HDR_FIELDS = ["version", "type", "opcode", "flags", "dtype", "op", "hdr_len",
              "job", "comm", "rank", "root", "seq", "chunk", "msg_size",
              "payload_len", "chunk_size", "contributors", "status", "auth"]

# (dissector_frames line, ACiS summary and what follows it)
FRAMES = [
    # every field at once, each a value no other field has: a width, an
    # order or a byte order wrong shows here
    ("type=2 opcode=0x47 flags=0x0f dtype=12 op=7 job=0x01020304 "
     "comm=0x05060708 rank=0x090a0b0c root=0x0d0e0f10 seq=0x11121314 "
     "chunk=0x15161718 msg_size=0x191a1b1c1d1e1f20 chunk_size=0x2122 "
     "contributors=0x2324 status=0x2526 auth=0x2728292a2b2c payload=2d2e2f30",
     None),
    ("type=4 opcode=0xff flags=0xff dtype=0xff op=0xff job=-1 comm=-1 rank=-1 "
     "root=-1 seq=-1 chunk=-1 msg_size=0xffffffffffffffff chunk_size=0xffff "
     "contributors=0xffff status=0xffff auth=0xffffffffffff payload_len=0xffff",
     None),
    # DATA and RESULT: every collective, algorithms, every datatype and op
    ("type=1 opcode=1 flags=2 dtype=5 op=1 job=7 comm=65536 rank=2 seq=5 chunk=1 "
     "msg_size=2000 chunk_size=1416 contributors=1 payload=0000c03f000000c0 size=584",
     "ACiS DATA allreduce float32 sum comm=65536 seq=5 rank=2 chunk=1/2 [LAST] len=584 / Raw"),
    ("type=1 opcode=0x47 dtype=11 op=7 job=7 comm=65536 rank=1 seq=9 chunk=5 "
     "msg_size=32 chunk_size=16 contributors=1 payload=fdff0700 size=16",
     "ACiS DATA reduce_scatter(ring) int16 bxor comm=65536 seq=9 rank=1 block=2 "
     "chunk=1/2 len=16 / Raw"),
    ("type=2 opcode=6 flags=9 dtype=10 job=7 comm=65536 rank=-1 seq=3 msg_size=3 "
     "chunk_size=1416 contributors=4 payload=0102030a0b0c1415161e1f20",
     "ACiS RESULT allgather uint8 comm=65536 seq=3 rank=none [MULTICAST,PACKED] "
     "len=12 / 4 blocks of 3 bytes"),
    ("type=2 opcode=1 flags=3 dtype=7 op=1 job=7 comm=65536 rank=0 seq=6 msg_size=4 "
     "chunk_size=8 contributors=4 payload=003e00b4",
     "ACiS RESULT allreduce float16 sum comm=65536 seq=6 rank=0 chunk=0/1 "
     "[MULTICAST,LAST] len=4 / Raw"),
    ("type=2 opcode=0x12 flags=2 dtype=8 op=4 job=7 comm=65536 rank=0 root=0 seq=7 "
     "msg_size=4 chunk_size=8 contributors=4 payload=00c04040",
     "ACiS RESULT reduce(binomial) bfloat16 max comm=65536 seq=7 rank=0 chunk=0/1 "
     "[LAST] len=4 / Raw"),
    ("type=1 opcode=3 flags=6 dtype=9 job=7 comm=65536 rank=0 root=0 seq=8 "
     "msg_size=4 chunk_size=8 contributors=1 payload=ff7f8001",
     "ACiS DATA bcast int8 comm=65536 seq=8 rank=0 chunk=0/1 [LAST,RETRANS] len=4 / Raw"),
    ("type=1 opcode=5 flags=2 dtype=12 job=7 comm=65536 rank=3 root=0 seq=10 "
     "msg_size=4 chunk_size=8 contributors=1 payload=ffff3412",
     "ACiS DATA gather uint16 comm=65536 seq=10 rank=3 chunk=0/1 [LAST] len=4 / Raw"),
    ("type=1 opcode=4 flags=2 dtype=10 job=7 comm=65536 rank=0 root=0 seq=12 "
     "chunk=3 msg_size=2 chunk_size=8 contributors=1 payload=0102",
     "ACiS DATA scatter uint8 comm=65536 seq=12 rank=0 block=3 chunk=0/1 [LAST] "
     "len=2 / Raw"),
    ("type=1 opcode=1 flags=2 dtype=2 op=2 job=7 comm=65536 rank=1 seq=13 "
     "msg_size=8 chunk_size=8 contributors=1 payload=feffffffffffffff",
     "ACiS DATA allreduce int64 prod comm=65536 seq=13 rank=1 chunk=0/1 [LAST] "
     "len=8 / Raw"),
    ("type=1 opcode=1 flags=2 dtype=4 op=5 job=7 comm=65536 rank=1 seq=14 "
     "msg_size=8 chunk_size=8 contributors=1 payload=ffffffffffffffff",
     "ACiS DATA allreduce uint64 band comm=65536 seq=14 rank=1 chunk=0/1 [LAST] "
     "len=8 / Raw"),
    ("type=1 opcode=0x21 flags=2 dtype=1 op=3 job=7 comm=65536 rank=1 seq=15 "
     "msg_size=8 chunk_size=8 contributors=1 payload=f9ffffff03000000",
     "ACiS DATA allreduce(recursive_doubling) int32 min comm=65536 seq=15 rank=1 "
     "chunk=0/1 [LAST] len=8 / Raw"),
    ("type=1 opcode=0x31 flags=2 dtype=3 op=6 job=7 comm=65536 rank=1 seq=16 "
     "msg_size=4 chunk_size=8 contributors=1 payload=00000080",
     "ACiS DATA allreduce(recursive_halving) uint32 bor comm=65536 seq=16 rank=1 "
     "chunk=0/1 [LAST] len=4 / Raw"),
    ("type=1 opcode=1 flags=2 dtype=6 op=4 job=7 comm=65536 rank=1 seq=17 "
     "msg_size=8 chunk_size=8 contributors=1 payload=000000000000f83f",
     "ACiS DATA allreduce float64 max comm=65536 seq=17 rank=1 chunk=0/1 [LAST] "
     "len=8 / Raw"),
    ("type=1 opcode=8 flags=2 job=7 comm=65536 rank=1 seq=11 contributors=1",
     "ACiS DATA barrier comm=65536 seq=11 rank=1 [LAST]"),
    # ACK and NACK: one chunk, coalesced keys, refusals, a host's resend
    ("type=3 opcode=3 job=7 comm=65536 rank=0 root=0 seq=4 chunk=3",
     "ACiS ACK bcast comm=65536 seq=4 rank=0 chunk=3"),
    ("type=3 opcode=4 job=7 comm=65536 rank=0 root=0 seq=12 chunk=3 "
     "payload=040000000500000006000000",
     "ACiS ACK scatter comm=65536 seq=12 rank=0 len=12 / keys=4,5,6"),
    ("type=4 opcode=1 job=7 comm=65536 rank=2 seq=5 chunk=2 status=1",
     "ACiS NACK allreduce BUSY comm=65536 seq=5 rank=2 chunk=2"),
    ("type=4 opcode=1 job=7 comm=65536 rank=3 seq=5 chunk=2 status=10 "
     "payload=0100000003000000",
     "ACiS NACK allreduce TIMEOUT comm=65536 seq=5 rank=3 chunk=2 len=8 / missing=1,3"),
    ("type=4 opcode=5 job=7 comm=65536 rank=0 root=0 seq=10 chunk=4 status=12",
     "ACiS NACK gather GONE comm=65536 seq=10 rank=0 chunk=4"),
    ("type=4 opcode=1 job=7 comm=65536 rank=2 seq=5 chunk=9",
     "ACiS NACK allreduce comm=65536 seq=5 rank=2 resend key=9"),
    # CTRL and CTRL_ACK: every operation, replies and refusals
    ("type=5 opcode=1 job=7 rank=1 root=4", "ACiS CTRL JOIN job=7 rank=1 size=4"),
    ("type=6 opcode=1 job=7 comm=65536 rank=1 root=4",
     "ACiS CTRL_ACK JOIN OK job=7 rank=1 comm=65536"),
    ("type=6 opcode=1 job=7 rank=1 root=4 status=7",
     "ACiS CTRL_ACK JOIN RANK_TAKEN job=7 rank=1 comm=0"),
    ("type=5 opcode=2 job=7 comm=65536 rank=1", "ACiS CTRL LEAVE job=7 rank=1"),
    ("type=6 opcode=2 job=7 comm=65536 rank=1 status=4",
     "ACiS CTRL_ACK LEAVE NOT_MEMBER job=7 rank=1"),
    ("type=5 opcode=3 job=7 comm=65536 rank=2 seq=6 chunk=2 msg_size=2147483647",
     "ACiS CTRL SPLIT comm=65536 seq=6 color=2 key=-1"),
    ("type=5 opcode=3 job=7 comm=65536 rank=3 seq=6 chunk=-1 msg_size=2147483653",
     "ACiS CTRL SPLIT comm=65536 seq=6 color=none key=5"),
    ("type=6 opcode=3 job=7 comm=65536 rank=2 seq=6 chunk=1 root=2 msg_size=131073",
     "ACiS CTRL_ACK SPLIT OK comm=65536 seq=6 new_comm=131073 new_rank=1 new_size=2"),
    ("type=6 opcode=3 job=7 comm=65536 rank=3 seq=6 chunk=-1 msg_size=0xffffffff",
     "ACiS CTRL_ACK SPLIT OK comm=65536 seq=6 new_comm=none new_rank=none new_size=none"),
    ("type=5 opcode=4 job=7 comm=131073 rank=1 seq=0", "ACiS CTRL COMM_FREE comm=131073 seq=0"),
    ("type=6 opcode=4 job=7 comm=131073 rank=1 seq=0 status=3",
     "ACiS CTRL_ACK COMM_FREE NO_COMM comm=131073 seq=0"),
    ("type=5 opcode=5 job=7 comm=196610 rank=5", "ACiS CTRL COMM_QUERY job=7 comm=196610 rank=5"),
    ("type=6 opcode=5 job=7 comm=196610 rank=1 root=3",
     "ACiS CTRL_ACK COMM_QUERY OK job=7 comm=196610 rank=1 size=3"),
    # LOOKASIDE: the handler's payload is its own
    ("type=7 opcode=2 job=7 seq=42 rank=9 payload=0000803f000000400000404000008040",
     "ACiS LOOKASIDE handler=2 job=7 seq=42 len=16 / Raw"),
    # another port, and a header a later version made longer
    ("type=1 opcode=1 flags=2 dtype=5 op=1 job=7 comm=65536 rank=1 seq=5 msg_size=4 "
     "chunk_size=8 contributors=1 payload=0000803f port=47123", None),
    ("type=3 opcode=1 hdr_len=60 chunk=1 payload=01020304050607000000 payload_len=4",
     "ACiS ACK allreduce comm=0 seq=0 rank=0 len=4 / keys=7"),
    # alltoall: a DATA names its receiver's block in chunk, a RESULT its
    # sender's in rank; the ACK carries the DATA's chunk
    ("type=1 opcode=9 dtype=10 job=7 comm=65536 rank=0 seq=14 chunk=7 msg_size=20 "
     "chunk_size=8 contributors=1 payload=0102030405060708",
     "ACiS DATA alltoall uint8 comm=65536 seq=14 rank=0 block=2 chunk=1/3 len=8 / Raw"),
    ("type=2 opcode=9 flags=2 dtype=10 job=7 comm=65536 rank=1 seq=14 chunk=2 msg_size=20 "
     "chunk_size=8 contributors=1 payload=11121314",
     "ACiS RESULT alltoall uint8 comm=65536 seq=14 rank=1 block=1 chunk=2/3 [LAST] len=4 / Raw"),
    ("type=3 opcode=9 job=7 comm=65536 rank=0 seq=14 chunk=7",
     "ACiS ACK alltoall comm=65536 seq=14 rank=0 chunk=7"),
    # DEADLINE and SSP (doc/sync.md), as the dissector shows them
    ("type=5 opcode=6 job=7 comm=65536 rank=1 msg_size=5000",
     "ACiS CTRL DEADLINE comm=65536 rank=1 period=5000us"),
    ("type=6 opcode=6 flags=1 job=7 comm=65536 rank=2 seq=4 chunk=2 msg_size=5000",
     "ACiS CTRL_ACK DEADLINE OK comm=65536 rank=2 signal epoch=4 period=5000us [MULTICAST]"),
    ("type=6 opcode=6 job=7 comm=65536 rank=1 seq=3 chunk=1 root=1",
     "ACiS CTRL_ACK DEADLINE OK comm=65536 rank=1 epoch=3 done (late)"),
    ("type=5 opcode=7 job=7 comm=65536 rank=1 seq=9 root=2",
     "ACiS CTRL SSP comm=65536 rank=1 done=9 staleness=2 quorum=all"),
    ("type=6 opcode=7 job=7 comm=65536 rank=3 seq=9 root=2 chunk=3",
     "ACiS CTRL_ACK SSP OK comm=65536 rank=3 continue=9"),
    # a fabric's tree: a partial up, the INSTALL of a tree (doc/fabric.md)
    ("type=1 opcode=1 flags=0x10 dtype=5 op=1 job=7 comm=65536 rank=2 seq=5 "
     "msg_size=4 chunk_size=8 contributors=2 payload=0000803f",
     "ACiS DATA allreduce float32 sum comm=65536 seq=5 rank=2 chunk=0/1 "
     "[PARTIAL] len=4 / Raw"),
    ("type=5 opcode=8 job=7 comm=65536 rank=0x0a4d00ca root=4 msg_size=2 "
     "payload=" + "02000000" + "0a4d000c" + "b798" + "02a00000000c" +
     "000000000000" + "0000" + "03000000" + "0a4d000d" + "b798" +
     "02a00000000d" + "000000000000" + "0000",
     "ACiS CTRL INSTALL tree of comm=65536 root=10.77.0.202 size=4 "
     "entries 0-1 of 2 len=48 / Raw"),
]

# malformed (line, class of the layer on UDP, summary of the ACiS layer)
MALFORMED = [
    ("type=1 cut=20", ACiSTruncated,
     "ACiS 20 bytes, under the 54-byte header [acis_truncated]"),
    ("type=1 cut=1", ACiSTruncated,
     "ACiS 1 bytes, under the 54-byte header [acis_truncated] / Padding"),
    ("type=3 cut=53", ACiSTruncated,
     "ACiS 53 bytes, under the 54-byte header [acis_truncated]"),
    ("type=1 version=2", ACiS, "ACiS version 2 type 1"),
    ("type=3 version=0 payload=01000000", ACiS, "ACiS version 0 type 3 / Raw"),
    ("type=3 hdr_len=40", ACiS, "ACiS ACK unknown(0) comm=0 seq=0 rank=0 chunk=0"),
    ("type=3 hdr_len=0xffff payload=01000000", ACiS,
     "ACiS ACK unknown(0) comm=0 seq=0 rank=0 len=4"),
    ("type=9", ACiS, "ACiS version 1 type 9"),
    ("type=3 payload_len=100 payload=00000000", ACiS,
     "ACiS ACK unknown(0) comm=0 seq=0 rank=0 len=100 / keys=0"),
    ("type=3 payload_len=2 payload=01000000", ACiS,
     "ACiS ACK unknown(0) comm=0 seq=0 rank=0 len=2 / Raw / Padding"),
    ("type=3 chunk=2 payload=0100000002", ACiS,
     "ACiS ACK unknown(0) comm=0 seq=0 rank=0 len=5 / Raw"),
    ("type=4 status=10 payload=010000", ACiS,
     "ACiS NACK unknown(0) TIMEOUT comm=0 seq=0 rank=0 chunk=0 len=3 / Raw"),
    ("type=2 opcode=5 flags=8 dtype=10 msg_size=0 payload=0102", ACiS,
     "ACiS RESULT gather uint8 comm=0 seq=0 rank=0 [PACKED] len=2 / Raw"),
    ("type=2 opcode=5 flags=8 dtype=10 msg_size=3 payload=0102030405", ACiS,
     "ACiS RESULT gather uint8 comm=0 seq=0 rank=0 [PACKED] len=5 / 2 blocks of 3 bytes"),
    ("type=1 opcode=15 dtype=5 op=1 msg_size=4 chunk_size=8 payload=00000000", ACiS,
     "ACiS DATA unknown(15) float32 sum comm=0 seq=0 rank=0 chunk=0/1 len=4 / Raw"),
    ("type=5 opcode=11", ACiS, "ACiS CTRL unknown(11)"),
    ("type=1 opcode=1 dtype=13 op=1 msg_size=4 chunk_size=8 payload=00000000", ACiS,
     "ACiS DATA allreduce unknown(13) sum comm=0 seq=0 rank=0 chunk=0/1 len=4 / Raw"),
    ("type=1 opcode=1 dtype=5 op=1 msg_size=4 chunk_size=0 payload=00000000", ACiS,
     "ACiS DATA allreduce float32 sum comm=0 seq=0 rank=0 len=4 / Raw"),
]



def parse_line(line):
    """dissector_frames.c's reading of a line: (header fields as set,
    payload, message length cut, UDP port)."""
    fields, payload, size, cut, port = {}, b"", 0, None, 47000
    for w in line.split():
        k, v = w.split("=", 1)
        if k == "payload":
            payload = bytes.fromhex(v)
            continue
        n = 0xFFFFFFFF if v == "-1" else int(v, 0)
        if k == "size":
            size = n
        elif k == "cut":
            cut = n
        elif k == "port":
            port = n
        else:
            fields[k] = n
    return fields, payload.ljust(size, b"\0"), cut, port


def header_of(fields, payload):
    """Every header field as dissector_frames writes it."""
    h = dict.fromkeys(HDR_FIELDS, 0)
    h.update(version=1, hdr_len=54, root=0xFFFFFFFF, payload_len=len(payload))
    h.update(fields)
    return h


def frame(msg, port):
    """What dissector_frames puts around a message (rank 0 to the switch)."""
    f = (Ether(dst="02:ac:15:00:00:01", src="02:a0:00:00:00:10")
         / IP(src="10.77.0.10", dst="10.77.0.1", id=0, flags="DF", ttl=64)
         / UDP(sport=40000, dport=port, chksum=0) / Raw(msg))
    return bytes(f).ljust(60, b"\0")


def named(fields):
    """The same fields, with names where the layer has them."""
    out = dict(fields)
    t = fields.get("type", 0)
    for k, names in (("type", TYPES), ("dtype", DTYPE_NAMES), ("op", OPS),
                     ("status", STATUSES)):
        if fields.get(k) in names:
            out[k] = names[fields[k]]
    code = fields.get("opcode")
    if code is not None and t != 7 and "unknown" not in opcode_name(t, code) \
            and opcode_name(t, code) != str(code):
        out["opcode"] = opcode_name(t, code)
    if "flags" in fields and fields["flags"] <= 0x0F:
        out["flags"] = "+".join(n for i, n in enumerate(FLAG_NAMES)
                                if fields["flags"] >> i & 1)
    for k in ("rank", "root"):
        if fields.get(k) == 0xFFFFFFFF:
            out[k] = "none"
    return out


def c_frames(tool, d, lines):
    path = os.path.join(d, "frames.pcap")
    run = subprocess.run([tool, path], input="\n".join(lines) + "\n", text=True,
                         capture_output=True)
    if run.returncode != 0:
        print(run.stderr)
        return []
    return [b for b, _ in RawPcapReader(path)]


def test_codec(tool, d):
    lines = [line for line, _ in FRAMES]
    raw = c_frames(tool, d, lines)
    check("dissector_frames wrote a frame per line", len(raw) == len(lines),
          "%d frames for %d lines" % (len(raw), len(lines)))
    for n, ((line, summary), b) in enumerate(zip(FRAMES, raw), 1):
        fields, payload, cut, port = parse_line(line)
        want = header_of(fields, payload)
        p = Ether(b)
        # another port is ACiS once bound (below)
        a = p.getlayer(ACiS) if port == 47000 else ACiS(b[42:34 + p[UDP].len])
        if a is None:
            check("frame %d: an ACiS layer" % n, False, p.summary())
            continue
        got = {k: int(a.getfieldval(k)) for k in HDR_FIELDS}
        check("frame %d: every header field as lib/proto wrote it" % n, got == want,
              "; ".join("%s %#x, want %#x" % (k, got[k], want[k])
                        for k in HDR_FIELDS if got[k] != want[k]))
        ext = want["hdr_len"] - 54
        check("frame %d: the payload as written" % n,
              bytes(a.payload)[:len(payload) - ext] == payload[ext:]
              and (a.ext if ext > 0 else b"") == payload[:ext])
        # scapy builds the same frame, from numbers and from names
        msg = ACiS(**fields) / Raw(payload) if payload else ACiS(**fields)
        check("frame %d: scapy builds lib/proto's bytes" % n, frame(bytes(msg), port) == b,
              "scapy %s\n       C     %s" % (frame(bytes(msg), port).hex(), b.hex()))
        nf = named(fields)
        msg = ACiS(**nf) / Raw(payload) if payload else ACiS(**nf)
        check("frame %d: ... and from names %s" % (n, " ".join(
            "%s=%s" % kv for kv in nf.items() if isinstance(kv[1], str))),
            frame(bytes(msg), port) == b)
        if summary is not None:
            s = a.summary()
            check("frame %d: summary '%s'" % (n, summary), s == summary, "got '%s'" % s)
    if len(raw) != len(lines):
        return
    p = {n: Ether(b) for n, b in enumerate(raw, 1)}
    check("a PACKED result's blocks in rank order",
          p[5][ACiSPacked].blocks == [b"\x01\x02\x03", b"\x0a\x0b\x0c",
                                      b"\x14\x15\x16", b"\x1e\x1f\x20"])
    check("coalesced ACK keys, NACK TIMEOUT missing ranks",
          p[18][ACiSKeys].keys == [4, 5, 6] and p[18][ACiS].chunk == 3
          and p[20][ACiSMissingRanks].ranks == [1, 3])
    vals = {3: [1.5, -2.0] + [0.0] * 144, 4: [-3, 7, 0, 0, 0, 0, 0, 0],
            6: [1.5, -0.25], 7: [-2.0, 3.0], 8: [-1, 127, -128, 1], 9: [65535, 4660],
            10: [1, 2], 11: [-2], 12: [2 ** 64 - 1], 13: [-7, 3], 14: [2 ** 31],
            15: [1.5], 16: [], 36: []}
    bad = ["%d: %s" % (n, p[n][ACiS].values()) for n, v in vals.items()
           if p[n][ACiS].values() != v]
    check("payload values of every datatype, little endian", not bad, "; ".join(bad))
    other = ACiS not in p[37]
    bind_port(47123)
    check("port 47123 is not ACiS until bound, then it is",
          other and Ether(raw[36])[ACiS].values() == [1.0])
    check("a CTRL_ACK answers its CTRL, a RESULT its DATA",
          p[24][ACiS].answers(p[23][ACiS]) and not p[23][ACiS].answers(p[24][ACiS])
          and p[5][ACiS].answers(ACiS(type="DATA", opcode="allgather", comm=65536, seq=3)))


def test_statuses(tool, d):
    """Every status lib/proto defines, by the same name and number, in a
    CTRL_ACK lib/proto wrote (the answer that carries OK too), read and
    built by scapy."""
    with open(PROTO_H) as f:
        defined = {int(n): name for name, n in
                   re.findall(r"^\s*ACIS_S_(\w+) = (\d+),", f.read(), re.M)}
    check("the layer names every status lib/proto defines, as it does",
          defined == STATUSES, "lib/proto %s\n       layer %s" % (defined, STATUSES))
    codes = sorted(defined)
    raw = c_frames(tool, d, ["type=6 opcode=1 job=7 comm=65536 rank=1 root=4 status=%d" % c
                             for c in codes])
    check("dissector_frames wrote a CTRL_ACK per status", len(raw) == len(codes))
    for c, b in zip(codes, raw):
        name = defined[c]
        a = Ether(b)[ACiS]
        built = frame(bytes(ACiS(type="CTRL_ACK", opcode="JOIN", job=7, comm=65536,
                                 rank=1, root=4, status=name)), 47000)
        want = "ACiS CTRL_ACK JOIN %s job=7 rank=1 comm=65536" % name
        check("status %d: read as %s, built from its name" % (c, name),
              a.status == c and a.summary() == want and built == b,
              "%s; %s" % (a.summary(), built.hex()))


def test_collectives():
    """Every collective lib/proto defines, by the same name and number."""
    with open(PROTO_H) as f:
        body = re.search(r"enum acis_coll \{(.*?)\};", f.read(), re.S).group(1)
    defined = {int(n): name.lower() for name, n in
               re.findall(r"ACIS_C_(\w+) = (\d+)", body)}
    check("the layer names every collective lib/proto defines, as it does",
          defined == COLLS, "lib/proto %s\n       layer %s" % (defined, COLLS))
    check("opcode() and opcode_name() take and give every collective's name",
          all(opcode(name) == code and opcode_name(1, code) == name
              for code, name in COLLS.items() if code != C_FUSED))
    with open(PROTO_H) as f:
        body = re.search(r"enum acis_fused_pattern \{(.*?)\};", f.read(),
                         re.S).group(1)
    pats = {int(n): name.lower() for name, n in
            re.findall(r"ACIS_FUSED_(\w+) = (\d+)", body)}
    check("the layer names every fused pattern lib/proto defines, and "
          "opcode() and opcode_name() take and give 'fused(PATTERN)'",
          pats == FUSED_PATTERNS and
          all(opcode("fused(%s)" % n) == (k << 4 | C_FUSED) and
              opcode_name(1, k << 4 | C_FUSED) == "fused(%s)" % n
              for k, n in pats.items()),
          "lib/proto %s\n       layer %s" % (pats, FUSED_PATTERNS))


def test_defaults():
    a = ACiS()
    check("defaults: version 1, hdr_len 54, root none, a 54-byte header",
          a.version == 1 and a.hdr_len == 54 and a.root == 0xFFFFFFFF
          and len(bytes(a)) == 54)
    a = ACiS(bytes(ACiS(type="DATA") / Raw(b"x" * 24)))
    check("payload_len is the payload's length unless set",
          a.payload_len == 24 and ACiS(bytes(ACiS(payload_len=3) / Raw(b"x"))).payload_len == 3)
    f = Ether(bytes(Ether() / IP() / UDP() / ACiS(type="ACK")))
    check("UDP()/ACiS() goes to port 47000, which dissects as ACiS (from "
          "scapy's source port 53 too)", f[UDP].dport == 47000 and ACiS in f)
    f = Ether(bytes(Ether() / IP() / UDP(sport=47000, dport=40001) / ACiS(type="RESULT")))
    check("what comes from port 47000 dissects as ACiS", ACiS in f)
    check("opcode names: collectives with algorithms, control operations",
          opcode("reduce_scatter(ring)") == 0x47 and opcode("allreduce", "binomial") == 0x11
          and opcode("JOIN") == 1 and opcode("comm_query") == 5
          and ACiS(type="CTRL", opcode="SPLIT").opcode == 3)
    j = join(7, 2, 4)
    r = receipts([0, 1, 2], opcode="bcast", rank=1, seq=3)
    la = lookaside(5, b"\0" * 8, job=7, seq=1)
    dc = data_chunks(b"\1" * 20, 8, opcode="allreduce", dtype="uint8", op="sum", rank=1)
    check("helpers: join, receipts, lookaside, data_chunks",
          (j.type, j.opcode, j.job, j.rank, j.root) == (5, 1, 7, 2, 4)
          and (r.type, r.chunk, r[ACiSKeys].keys) == (3, 3, [0, 1, 2])
          and bytes(r)[40:42] == b"\0\x0c"
          and (la.type, la.opcode, len(la.payload)) == (7, 5, 8)
          and [(c.chunk, int(c.flags), c.payload_len if c.payload_len is not None
                else len(c.payload), c.msg_size, c.contributors) for c in dc]
          == [(0, 0, 8, 20, 1), (1, 0, 8, 20, 1), (2, 2, 4, 20, 1)])
    res = ACiS(type="RESULT", opcode="scatter", dtype="uint8", rank=2, chunk=1,
               msg_size=20, chunk_size=8) / Raw(bytes(8))
    check("a scatter RESULT's block is its rank, its chunk the one in the block",
          "block=2 chunk=1/3" in res.mysummary()[0], res.summary())
    a2a = [ACiS(type=t, opcode="alltoall", dtype="int32", rank=r, chunk=c,
                msg_size=4000, chunk_size=1416) for t, r, c in
           (("DATA", 0, 5), ("RESULT", 3, 2))]
    check("alltoall: a DATA's block is chunk // cpr, a RESULT's its rank (the sender)",
          [m.mysummary()[0].split(" rank=")[1] for m in a2a]
          == ["0 block=1 chunk=2/3", "3 block=3 chunk=2/3"],
          "; ".join(m.summary() for m in a2a))
    data = ACiS(type="DATA", opcode="allreduce", comm=CTX_WORLD, seq=4, job=7)
    check("an answer under the world's id answers a DATA sent by alias",
          ACiS(type="RESULT", opcode="allreduce", comm=65536, seq=4, job=7).answers(data))
    b = bytes(join(7, 0, 2, auth=0x123456789ABC))
    check("auth: 0 unless given, else the 6 big-endian bytes from 48 to 54",
          ACiS().auth == 0 and bytes(join(7, 0, 2))[48:54] == bytes(6)
          and len(b) == 54 and b[46:54] == bytes.fromhex("0000123456789abc")
          and ACiS(b).auth == 0x123456789ABC, b.hex())


def test_acis_pcap(d):
    coll = os.path.join(d, "coll.pcap")
    run = subprocess.run([sys.executable, ACIS_PCAP, "collective", coll, "--coll", "allreduce",
                          "--dtype", "int16", "--op", "max", "--ranks", "4", "--size", "4096",
                          "--count", "2", "--job", "9"], capture_output=True, text=True)
    check("acis_pcap.py collective exits 0", run.returncode == 0, run.stderr)
    if run.returncode != 0:
        return
    pk = rdpcap(coll)
    msgs = [p[ACiS] for p in pk if ACiS in p]
    check("rdpcap: every frame of the file is ACiS",
          len(msgs) == len(pk) == 4 + 2 * 12 + 2 * 4 + 4)
    joins = [(a.rank, a.root, a.job) for a in msgs if a.type == 5 and a.opcode == 1]
    check("rdpcap: the JOINs", joins == [(r, 4, 9) for r in range(4)])
    leaves = [(a.rank, a.job) for a in msgs if a.type == 5 and a.opcode == 2]
    check("rdpcap: the LEAVEs, last", leaves == [(r, 9) for r in range(4)]
          and all(a.type == 5 and a.opcode == 2 for a in msgs[-4:]))
    check("rdpcap: DATA and receipts name the job's world by alias (comm 0)",
          all(a.comm == CTX_WORLD for a in msgs if a.type in (1, 3)))
    data = [(a.seq, a.rank, a.chunk, a.dtype, a.op, a.job, int(a.flags), a.payload_len)
            for a in msgs if a.type == 1]
    want = [(s, r, c, 11, 4, 9, 2 if c == 2 else 0, 1264 if c == 2 else 1416)
            for s in (0, 1) for c in (0, 1, 2) for r in range(4)]
    check("rdpcap: every DATA chunk (seq, rank, chunk, int16, max, LAST)", data == want)
    check("rdpcap: DATA values are the generator's small integers",
          all(-8 <= v <= 8 for a in msgs if a.type == 1 for v in a.values()))
    acks = [(a.seq, a.rank, a.chunk, a[ACiSKeys].keys) for a in msgs if a.type == 3]
    check("rdpcap: every rank's receipts and their keys",
          acks == [(s, r, 3, [0, 1, 2]) for s in (0, 1) for r in range(4)])
    mix = os.path.join(d, "mix.pcap")
    subprocess.run([sys.executable, ACIS_PCAP, "mix", mix, "--acis-port", "48000", "--count", "3",
                    "--size", "2048", "--handler", "5"], capture_output=True, check=True)
    to_port = sum(1 for p in rdpcap(mix) if UDP in p and p[UDP].dport == 48000)
    bind_port(48000)
    pk = rdpcap(mix)
    acis = [p for p in pk if ACiS in p]
    check("bind_port(48000): the %d frames to port 48000 are ACiS, nothing else" % to_port,
          to_port > 30 and len(acis) == to_port
          and all(p[UDP].dport == 48000 for p in acis))
    check("mix: the 3 look-aside requests to handler 5",
          sum(1 for p in acis if p[ACiS].type == 7 and p[ACiS].opcode == 5) == 3)


def test_malformed(tool, d):
    raw = c_frames(tool, d, [line for line, _, _ in MALFORMED])
    check("dissector_frames wrote the malformed frames", len(raw) == len(MALFORMED))
    for (line, cls, summary), b in zip(MALFORMED, raw):
        try:
            p = Ether(b)
            top = p[UDP].payload
            s = top.summary()
            p.show(dump=True)
            ok = type(top) is cls and s == summary
            if ok and cls is ACiSTruncated:
                ok = top.data == b[42:42 + int(line.split("cut=")[1])]
            detail = "%s: '%s'" % (type(top).__name__, s)
        except Exception as e:  # noqa: BLE001 -- anything raised is the failure
            ok, detail = False, repr(e)
        check("malformed '%s': %s, '%s'" % (line, cls.__name__, summary), ok, detail)
    rng = random.Random(1)
    errors = []
    for i in range(2000):
        n = rng.choice([0, 1, 20, 53, 54, 55, 58, 62, 70, 100, 200])
        b = bytearray(rng.getrandbits(8) for _ in range(n))
        if n >= 54 and i % 2:
            # a version 1 header of a known type, lengths near the truth
            b[0], b[1], b[3] = 1, rng.randrange(1, 8), rng.getrandbits(8)
            b[6:8] = rng.choice([54, 54, 58, 40, 0xFFFF]).to_bytes(2, "big")
            b[32:40] = rng.choice([0, 1, 3, 4, 2 ** 64 - 1]).to_bytes(8, "big")
            b[40:42] = (rng.choice([n - 54, 0, 0xFFFF, n - 55]) & 0xFFFF).to_bytes(2, "big")
        f = Ether() / IP() / UDP(sport=40000, dport=47000, chksum=0) / Raw(bytes(b))
        try:
            p = Ether(bytes(f))
            p.summary()
            p.show(dump=True)
            if ACiS in p:
                p[ACiS].values()
            # whatever was read, it writes back the same bytes
            if bytes(p[UDP].payload) != bytes(b):
                errors.append("%d: %s rebuilt as %s" % (i, bytes(b).hex(),
                                                       bytes(p[UDP].payload).hex()))
        except Exception as e:  # noqa: BLE001
            errors.append("%d: %s: %r" % (i, bytes(b).hex(), e))
    check("2000 random messages on the ACiS port: dissected without an error, "
          "rebuilt byte for byte", not errors, "; ".join(errors[:3]))


def test_switch(switch, pipeline, d):
    sw_mac, sw_ip = "02:ac:15:00:00:01", "10.77.0.1"

    def host(r, msg):
        return (Ether(src="02:a0:00:00:00:%02x" % (0x10 + r), dst=sw_mac)
                / IP(src="10.77.0.%d" % (10 + r), dst=sw_ip, flags="DF")
                / UDP(sport=40000 + r) / msg)

    blocks = [struct.pack("<4i", 1, -2, 3, 4), struct.pack("<4i", 10, 20, -30, 40)]
    hdr = dict(opcode="allreduce", dtype="int32", op="sum", job=7, comm=65536, seq=0)
    # rank 0 unauthenticated (auth 0), rank 1 with a cookie in every message
    cookie = [0, 0xA1B2C3D4E5F6]
    joins = [host(r, join(7, r, 2, auth=cookie[r])) for r in (0, 1)]
    data = [host(r, data_chunks(blocks[r], 1416, rank=r, auth=cookie[r], **hdr)[0])
            for r in (0, 1)]
    acks = [host(r, receipts([0], rank=r, auth=cookie[r], **hdr)) for r in (0, 1)]
    w = PcapWriter(os.path.join(d, "in0.pcap"), linktype=1)
    w.write(joins + data + acks)
    w.close()
    for i in range(1, 4):
        PcapWriter(os.path.join(d, "in%d.pcap" % i), linktype=1).close()
    run = subprocess.run([switch, "-l", "0", "--no-huge", "-m", "512", "--no-shconf", "--no-pci",
                          "--no-telemetry", "--log-level=error", "--", "--pipeline", pipeline,
                          "--idle-exit", "1"], env=dict(os.environ, ACIS_PCAP_DIR=d),
                         capture_output=True, text=True, timeout=60)
    check("acis-switch on pcap ports exits 0, nothing dropped",
          run.returncode == 0 and "drops: total=0" in run.stdout, run.stdout + run.stderr)
    out = [p for p in rdpcap(os.path.join(d, "out0.pcap")) if ACiS in p]
    ctrl = [p for p in out if p[ACiS].type == 6]
    res = [p for p in out if p[ACiS].type == 2]
    check("a CTRL_ACK JOIN OK for each rank, answering its JOIN, world comm 65536",
          len(ctrl) == 2 and all(p[ACiS].status == 0 and p[ACiS].comm == 65536
                                 and sum(p.answers(j) for j in joins) == 1 for p in ctrl),
          "; ".join(p.summary() for p in out))
    check("a RESULT for each rank, answering its DATA, with the sums",
          len(res) == 2 and all(p[ACiS].values() == [11, 18, -27, 44]
                                and sum(p.answers(q) for q in data) == 1 for p in res),
          "; ".join(p.summary() for p in out))
    check("every answer carries its rank's cookie (0 to the rank without one)",
          len(out) == 4 and all(p[ACiS].auth == cookie[p[UDP].dport - 40000] for p in out),
          "; ".join("%d: %#x" % (p[UDP].dport, p[ACiS].auth) for p in out))


def main():
    tool = sys.argv[1]
    # a dissector that raises is a failure here, not a quiet Raw
    conf.debug_dissector = True
    conf.padding = True
    d = tempfile.mkdtemp(prefix="acis-scapy-")
    try:
        for name, run in (("defaults and helpers", test_defaults),
                          ("every collective", test_collectives),
                          ("lib/proto's frames", lambda: test_codec(tool, d)),
                          ("every status", lambda: test_statuses(tool, d)),
                          ("malformed messages", lambda: test_malformed(tool, d)),
                          ("acis_pcap.py's files", lambda: test_acis_pcap(d)),
                          ("the switch", lambda: test_switch(sys.argv[2], sys.argv[3], d))):
            try:
                run()
            except Exception:  # noqa: BLE001 -- a broken layer fails, not crashes
                check(name + " run to the end", False, traceback.format_exc())
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
