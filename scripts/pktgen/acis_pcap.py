#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""acis_pcap.py: pcap files of ACiS traffic, to replay into acis-switch with
pktgen-DPDK (doc/pktgen.md), tcpreplay or the net_pcap driver.

    acis_pcap.py collective  OUT.pcap [--coll allreduce] [--ranks 4]
                             [--size 65536] [--count 100] [--dtype float32]
    acis_pcap.py lookaside   OUT.pcap [--handler 2] [--floats 352] [--count 100]
    acis_pcap.py udp         OUT.pcap [--port 48001] [--bytes 1024] [--count 100]
    acis_pcap.py background  OUT.pcap [--count 1000] [--seed 1]
    acis_pcap.py mix         OUT.pcap [--count 100] ...   (all of the above)

Hosts are those of the namespace testbed: rank i is 02:a0:00:00:00:(10+i),
10.77.0.(10+i), UDP port 40000+i; the switch is 02:ac:15:00:00:01,
10.77.0.1, ACiS port 47000 (--switch-mac, --switch-ip, --acis-port).

A collective file starts with every rank's JOIN, then `count` collectives,
each rank's DATA chunks (chunk_size = MTU - 82 rounded down to 8), and each
rank's receipts for a collective once the next one is under way, as
libacis sends them, and ends with every rank's LEAVE. The messages name
the job's world communicator as 0, the world alias (doc/wire-format.md),
not by the id the switch gives it: replayed in a loop, each pass is the
job joining anew, a new world, and every collective is answered again.
--comm ID names a communicator by its id instead (`acisctl comms`).
Look-aside requests go to handler `--handler` (a `[lookaside]` rule's
`acis_handler`); `udp` makes plain UDP datagrams to the switch for a
`match = udp_port` rule. Background is what else a switch sees: UDP and TCP
of 64 to 1500 bytes from the hosts to far hosts behind another port
(02:a0:00:00:01:0x, 10.77.1.x; pipelines/pktgen-*.ini make them static),
ARP for the switch and ICMP echo to it.

Frames are built with scapy (Debian's python3-scapy) and the ACiS layer of
python/acis/layer.py (doc/scapy.md).
"""
import argparse
import os
import random
import struct
import sys

from scapy.data import DLT_EN10MB
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw
from scapy.utils import PcapWriter

# the layer from this checkout's python/, else an installed acis package
_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
if os.path.isdir(os.path.join(_PY, "acis")):
    sys.path.insert(0, os.path.normpath(_PY))
from acis.layer import (C_BARRIER, C_BCAST, C_REDUCE, CTX_WORLD, RANK_NONE,  # noqa: E402
                        data_chunks, join, leave, lookaside as la_request,
                        receipts as receipts_msg)

DTYPES = {"int32": (1, 4, "<i"), "int64": (2, 8, "<q"), "uint32": (3, 4, "<I"),
          "uint64": (4, 8, "<Q"), "float32": (5, 4, "<f"), "float64": (6, 8, "<d"),
          "int8": (9, 1, "<b"), "uint8": (10, 1, "<B"), "int16": (11, 2, "<h"),
          "uint16": (12, 2, "<H")}
OPS = {"sum": 1, "prod": 2, "min": 3, "max": 4}
COLLS = {"allreduce": 1, "reduce": 2, "bcast": 3, "barrier": 8}


def host_mac(i):
    return "02:a0:00:00:00:%02x" % (0x10 + i)


def host_ip(i):
    return "10.77.0.%d" % (10 + i)


def far_mac(i):
    return "02:a0:00:00:01:%02x" % i


def far_ip(i):
    return "10.77.1.%d" % i


def stack(*layers):
    """layers[0] / layers[1] / ... without the copies `/` makes (half the
    time of a frame)."""
    for layer in layers[1:]:
        layers[0].add_payload(layer)
    return layers[0]


def ipv4(src, dst):
    # what the switch and libacis send: DF, TTL 64, id 0
    return IP(src=src, dst=dst, id=0, flags="DF", ttl=64)


def udp_frame(dmac, smac, sip, dip, sport, dport, payload, chksum=0):
    # UDP checksum 0 (none: IPv4 allows it) unless chksum is None, which
    # has scapy compute it
    return stack(Ether(dst=dmac, src=smac), ipv4(sip, dip),
                 UDP(sport=sport, dport=dport, chksum=chksum), payload)


class Net:
    def __init__(self, a):
        self.sw_mac, self.sw_ip, self.port = a.switch_mac, a.switch_ip, a.acis_port

    def to_switch(self, rank, msg):
        # with its checksum, as libacis sends it: the switch refuses
        # control messages without one
        return udp_frame(self.sw_mac, host_mac(rank), host_ip(rank), self.sw_ip,
                         40000 + rank, self.port, msg, chksum=None)


def collective(a, net):
    """JOIN, then count collectives with receipts one collective late."""
    code, esize, fmt = DTYPES[a.dtype]
    coll = COLLS[a.coll]
    chunk_size = (a.mtu - 82) // 8 * 8
    size = 0 if coll == C_BARRIER else a.size // esize * esize
    nchunks = 1 if size == 0 else -(-size // chunk_size)
    rng = random.Random(a.seed)
    frames = [net.to_switch(r, join(a.job, r, a.ranks)) for r in range(a.ranks)]
    # each rank's data: small integers, exact in every datatype
    # (struct's unsigned formats are the upper-case ones)
    data = [b"".join(struct.pack(fmt, rng.randint(0, 8) if fmt[-1].isupper()
                                 else rng.randint(-8, 8)) for _ in range(size // esize))
            for _ in range(a.ranks)]
    senders = [0] if coll == C_BCAST else range(a.ranks)
    hdr = dict(opcode=coll, dtype=0 if coll == C_BARRIER else code,
               op=OPS[a.op] if coll in (COLLS["allreduce"], C_REDUCE) else 0,
               job=a.job, comm=a.comm,
               root=0 if coll in (C_REDUCE, C_BCAST) else RANK_NONE)

    def receipts(seq):
        # what each rank confirms: the keys of the answers it got (the
        # bcast root gets ACKs, confirms nothing)
        return [net.to_switch(r, receipts_msg(range(nchunks), rank=r, seq=seq,
                                              msg_size=size, chunk_size=chunk_size, **hdr))
                for r in range(a.ranks) if not (coll == C_BCAST and r == 0)]

    for seq in range(a.count):
        chunks = {r: data_chunks(data[r], chunk_size, rank=r, seq=seq, **hdr)
                  for r in senders}
        for c in range(nchunks):
            frames += [net.to_switch(r, chunks[r][c]) for r in senders]
        if seq > 0:
            frames += receipts(seq - 1)
    if a.count:
        frames += receipts(a.count - 1)
    frames += [net.to_switch(r, leave(a.job, r)) for r in range(a.ranks)]
    return frames


def lookaside(a, net):
    rng = random.Random(a.seed)
    frames = []
    for i in range(a.count):
        pl = b"".join(struct.pack("<f", rng.uniform(-2, 2)) for _ in range(a.floats))
        frames.append(net.to_switch(i % a.ranks, la_request(a.handler, pl, job=a.job, seq=i)))
    return frames


def udp(a, net):
    rng = random.Random(a.seed)
    return [udp_frame(net.sw_mac, host_mac(i % a.ranks), host_ip(i % a.ranks), net.sw_ip,
                      41000 + i % a.ranks, a.port,
                      Raw(bytes(rng.getrandbits(8) for _ in range(a.bytes))))
            for i in range(a.count)]


def background(a, net):
    """What else a switch sees: UDP and TCP from the hosts to far hosts
    (02:a0:00:00:01:0x, 10.77.1.x, x < 4: behind another port of the
    switch), and ARP for the switch and ICMP echo to it."""
    rng = random.Random(a.seed)
    frames = []
    for i in range(a.count):
        s = rng.randrange(a.ranks)
        d = rng.randrange(4)
        kind = rng.random()
        if kind < 0.6:
            n = rng.choice([18, 64, 256, 512, 1024, 1472])
            frames.append(udp_frame(far_mac(d), host_mac(s), host_ip(s), far_ip(d),
                                    rng.randrange(1024, 65536), rng.choice([53, 123, 9000]),
                                    Raw(bytes(n))))
        elif kind < 0.85:
            n = rng.choice([0, 512, 1460])
            # TCP checksum left 0: background the switch only forwards
            tcp = TCP(sport=rng.randrange(1024, 65536), dport=5201, seq=i, ack=0,
                      dataofs=5, flags="PA", window=65535, chksum=0)
            frames.append(stack(Ether(dst=far_mac(d), src=host_mac(s)),
                                ipv4(host_ip(s), far_ip(d)), tcp, Raw(bytes(n))))
        elif kind < 0.95:
            frames.append(stack(Ether(dst=net.sw_mac, src=host_mac(s)),
                                ipv4(host_ip(s), net.sw_ip),
                                ICMP(type=8, code=0, id=s, seq=i & 0xFFFF), Raw(bytes(56))))
        else:
            frames.append(stack(Ether(dst="ff:ff:ff:ff:ff:ff", src=host_mac(s)),
                                ARP(op=1, hwsrc=host_mac(s), psrc=host_ip(s),
                                    hwdst="00:00:00:00:00:00", pdst=net.sw_ip)))
    return frames


def mix(a, net):
    """Collectives with look-aside requests and background in between."""
    parts = [collective(a, net), lookaside(a, net), udp(a, net), background(a, net)]
    head = parts[0][:a.ranks]  # the JOINs come first
    rest = [parts[0][a.ranks:]] + parts[1:]
    out, idx = list(head), [0] * len(rest)
    total = sum(len(p) for p in rest)
    rng = random.Random(a.seed)
    while sum(idx) < total:
        # interleave in proportion, keeping each part's own order
        k = rng.choices(range(len(rest)),
                        [len(p) - i for p, i in zip(rest, idx)])[0]
        out.append(rest[k][idx[k]])
        idx[k] += 1
    return out


def write_pcap(path, frames):
    """Frames 1 us apart from time 0, so a file is the same at every run;
    the bytes of all frames before padding."""
    total = 0
    with PcapWriter(path, linktype=DLT_EN10MB, endianness="<", snaplen=65535) as w:
        w.write_header(None)
        for i, f in enumerate(frames):
            b = bytes(f)
            total += len(b)
            # the Ethernet minimum, less the FCS
            w.write_packet(b.ljust(60, b"\0"), sec=i // 1000000, usec=i % 1000000)
    return total


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("kind", choices=["collective", "lookaside", "udp", "background", "mix"])
    p.add_argument("out")
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--coll", choices=sorted(COLLS), default="allreduce")
    p.add_argument("--size", type=int, default=65536, help="bytes per rank")
    p.add_argument("--dtype", choices=sorted(DTYPES), default="float32")
    p.add_argument("--op", choices=sorted(OPS), default="sum")
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--job", type=int, default=7)
    p.add_argument("--comm", type=int, default=CTX_WORLD,
                   help="context id in DATA and ACK (default 0: the job's world)")
    p.add_argument("--mtu", type=int, default=1500)
    p.add_argument("--handler", type=int, default=2)
    p.add_argument("--floats", type=int, default=352)
    p.add_argument("--port", type=int, default=48001)
    p.add_argument("--bytes", type=int, default=1024)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--switch-mac", default="02:ac:15:00:00:01")
    p.add_argument("--switch-ip", default="10.77.0.1")
    p.add_argument("--acis-port", type=int, default=47000)
    a = p.parse_args()
    if not 1 <= a.ranks <= 200:
        p.error("--ranks: 1 to 200 (testbed host addresses)")
    if not 576 <= a.mtu <= 9600:
        p.error("--mtu: 576 to 9600")
    if a.count < 0 or a.size < 0 or a.floats < 0 or a.bytes < 0:
        p.error("counts and sizes are not negative")
    if a.floats * 4 + 82 > a.mtu or a.bytes + 28 > a.mtu:
        p.error("a look-aside request or datagram must fit the MTU")
    net = Net(a)
    frames = globals()[a.kind](a, net)
    total = write_pcap(a.out, frames)
    print("%s: %d frames, %d bytes" % (a.out, len(frames), total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
