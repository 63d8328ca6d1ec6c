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
libacis sends them; replayed in a loop, the switch answers every
collective again (the slots of the previous pass were confirmed and freed).
The world communicator's id is the switch's: a fresh switch gives its
first job 65536 (`acisctl comms` shows it; --comm to change).
Look-aside requests go to handler `--handler` (a `[lookaside]` rule's
`acis_handler`); `udp` makes plain UDP datagrams to the switch for a
`match = udp_port` rule. Background is what else a switch sees: UDP and TCP
of 64 to 1500 bytes from the hosts to far hosts behind another port
(02:a0:00:00:01:0x, 10.77.1.x; pipelines/pktgen-*.ini make them static),
ARP for the switch and ICMP echo to it.
"""
import argparse
import random
import struct
import sys

ETH_IP = 0x0800
ETH_ARP = 0x0806

DTYPES = {"int32": (1, 4, "<i"), "int64": (2, 8, "<q"), "uint32": (3, 4, "<I"),
          "uint64": (4, 8, "<Q"), "float32": (5, 4, "<f"), "float64": (6, 8, "<d"),
          "int8": (9, 1, "<b"), "uint8": (10, 1, "<B"), "int16": (11, 2, "<h"),
          "uint16": (12, 2, "<H")}
OPS = {"sum": 1, "prod": 2, "min": 3, "max": 4}
COLLS = {"allreduce": 1, "reduce": 2, "bcast": 3, "barrier": 8}
T_DATA, T_ACK, T_CTRL, T_LOOKASIDE = 1, 3, 5, 7
CTRL_JOIN = 1
F_LAST = 0x02
HDR_LEN = 54
RANK_NONE = 0xFFFFFFFF


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def ip(s):
    return bytes(int(x) for x in s.split("."))


def host_mac(i):
    return bytes([0x02, 0xA0, 0, 0, 0, 0x10 + i])


def host_ip(i):
    return bytes([10, 77, 0, 10 + i])


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ipv4(src, dst, proto, payload):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 0, 0x4000, 64,
                    proto, 0, src, dst)
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + payload


def udp_frame(dmac, smac, sip, dip, sport, dport, payload):
    # UDP checksum 0: none (IPv4 allows it; the switch sends the same)
    u = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    return dmac + smac + struct.pack("!H", ETH_IP) + ipv4(sip, dip, 17, u)


def acis_hdr(type_, opcode=0, flags=0, dtype=0, op=0, job=0, comm=0, rank=0,
             root=RANK_NONE, seq=0, chunk=0, msg_size=0, payload_len=0,
             chunk_size=0, contributors=0):
    # doc/wire-format.md: 54 bytes, big endian
    return struct.pack("!BBBBBBHIIIIIIQHHHHH4x", 1, type_, opcode, flags, dtype, op,
                       HDR_LEN, job, comm, rank, root, seq, chunk, msg_size,
                       payload_len, chunk_size, contributors, 0, 0)


class Net:
    def __init__(self, a):
        self.sw_mac, self.sw_ip, self.port = mac(a.switch_mac), ip(a.switch_ip), a.acis_port

    def to_switch(self, rank, payload):
        return udp_frame(self.sw_mac, host_mac(rank), host_ip(rank), self.sw_ip,
                         40000 + rank, self.port, payload)


def collective(a, net):
    """JOIN, then count collectives with receipts one collective late."""
    code, esize, fmt = DTYPES[a.dtype]
    coll = COLLS[a.coll]
    chunk_size = (a.mtu - 82) // 8 * 8
    size = 0 if coll == COLLS["barrier"] else a.size // esize * esize
    nchunks = 1 if size == 0 else -(-size // chunk_size)
    rng = random.Random(a.seed)
    frames = []
    for r in range(a.ranks):
        frames.append(net.to_switch(r, acis_hdr(T_CTRL, CTRL_JOIN, job=a.job, rank=r,
                                                root=a.ranks)))
    # each rank's data: small integers, exact in every datatype
    # (struct's unsigned formats are the upper-case ones)
    data = [b"".join(struct.pack(fmt, rng.randint(0, 8) if fmt[-1].isupper()
                                 else rng.randint(-8, 8)) for _ in range(size // esize))
            for _ in range(a.ranks)]
    senders = [0] if coll == COLLS["bcast"] else range(a.ranks)
    root = 0 if coll in (COLLS["reduce"], COLLS["bcast"]) else RANK_NONE
    op = OPS[a.op] if coll in (COLLS["allreduce"], COLLS["reduce"]) else 0
    dt = 0 if coll == COLLS["barrier"] else code

    def receipts(seq):
        # what each rank confirms: the keys of the answers it got
        out = []
        for r in range(a.ranks):
            keys = list(range(nchunks))
            if coll == COLLS["bcast"] and r == 0:
                continue  # the root gets ACKs, confirms nothing
            pl = b"".join(struct.pack("<I", k) for k in keys)
            h = acis_hdr(T_ACK, coll, dtype=dt, op=op, job=a.job, comm=a.comm, rank=r,
                         root=root, seq=seq, chunk=len(keys), msg_size=size,
                         payload_len=len(pl), chunk_size=chunk_size)
            out.append(net.to_switch(r, h + pl))
        return out

    for seq in range(a.count):
        for c in range(nchunks):
            for r in senders:
                pl = data[r][c * chunk_size:(c + 1) * chunk_size]
                h = acis_hdr(T_DATA, coll, F_LAST if c == nchunks - 1 else 0, dt, op,
                             a.job, a.comm, r, root, seq, c, size, len(pl), chunk_size, 1)
                frames.append(net.to_switch(r, h + pl))
        if seq > 0:
            frames += receipts(seq - 1)
    if a.count:
        frames += receipts(a.count - 1)
    return frames


def lookaside(a, net):
    rng = random.Random(a.seed)
    frames = []
    for i in range(a.count):
        pl = b"".join(struct.pack("<f", rng.uniform(-2, 2)) for _ in range(a.floats))
        h = acis_hdr(T_LOOKASIDE, a.handler, job=a.job, seq=i, payload_len=len(pl))
        frames.append(net.to_switch(i % a.ranks, h + pl))
    return frames


def udp(a, net):
    rng = random.Random(a.seed)
    return [udp_frame(net.sw_mac, host_mac(i % a.ranks), host_ip(i % a.ranks), net.sw_ip,
                      41000 + i % a.ranks, a.port,
                      bytes(rng.getrandbits(8) for _ in range(a.bytes)))
            for i in range(a.count)]


def far_mac(i):
    return bytes([0x02, 0xA0, 0, 0, 0x01, i])


def far_ip(i):
    return bytes([10, 77, 1, i])


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
                                    bytes(n)))
        elif kind < 0.85:
            n = rng.choice([0, 512, 1460])
            tcp = struct.pack("!HHIIBBHHH", rng.randrange(1024, 65536), 5201, i, 0,
                              5 << 4, 0x18, 65535, 0, 0) + bytes(n)
            frames.append(far_mac(d) + host_mac(s) + struct.pack("!H", ETH_IP) +
                          ipv4(host_ip(s), far_ip(d), 6, tcp))
        elif kind < 0.95:
            icmp = struct.pack("!BBHHH", 8, 0, 0, s, i & 0xFFFF) + bytes(56)
            icmp = icmp[:2] + struct.pack("!H", csum(icmp)) + icmp[4:]
            frames.append(net.sw_mac + host_mac(s) + struct.pack("!H", ETH_IP) +
                          ipv4(host_ip(s), net.sw_ip, 1, icmp))
        else:
            arp = struct.pack("!HHBBH6s4s6s4s", 1, ETH_IP, 6, 4, 1, host_mac(s), host_ip(s),
                              bytes(6), net.sw_ip)
            frames.append(b"\xff" * 6 + host_mac(s) + struct.pack("!H", ETH_ARP) + arp)
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
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            if len(fr) < 60:
                fr += bytes(60 - len(fr))  # the Ethernet minimum, less the FCS
            f.write(struct.pack("<IIII", i // 1000000, i % 1000000, len(fr), len(fr)))
            f.write(fr)


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
    p.add_argument("--comm", type=int, default=65536)
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
    write_pcap(a.out, frames)
    print("%s: %d frames, %d bytes" % (a.out, len(frames), sum(len(f) for f in frames)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
