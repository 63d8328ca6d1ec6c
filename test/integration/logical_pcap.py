#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Integration: two logical switches in one acis-switch process.

Switch a has a net_pcap port p0 (host A) and end a of a ring pair p1;
switch b has the other end (p0) and a net_pcap port p1 (host B's side).
Frames replayed on a's p0 must cross the ring pair to b: an unknown
unicast is flooded by both and leaves on b's p1 untouched; ARP and ping
of b's address are answered by b, back across the ring, and leave on a's
p0; ping of a's address is answered by a alone. The process exits when
idle, printing each switch's counters under its name; under the
sanitizers it must leave nothing behind.
Usage: logical_pcap.py ACIS_SWITCH_BINARY
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from scapy.all import ARP, ICMP, IP, UDP, Ether, Raw, rdpcap
from scapy.utils import PcapWriter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, summary  # noqa: E402

A_MAC, A_IP = "02:00:00:00:00:0a", "10.77.0.10"
B_MAC, B_IP = "02:00:00:00:00:0b", "10.77.0.11"
SWA = ("02:ac:15:00:00:01", "10.77.0.1")
SWB = ("02:ac:15:00:00:02", "10.77.0.2")

PIPELINE = """[switch]
name = {name}
mac = {mac}
ip = {ip}
mbufs = 4095
[port p0]
dev = {p0}
rxd = 512
txd = 512
[port p1]
dev = {p1}
rxd = 512
txd = 512
"""


def pcap_dev(n, d):
    return f"net_pcap{n},rx_pcap={d}/in{n}.pcap,tx_pcap={d}/out{n}.pcap"


def main():
    d = tempfile.mkdtemp(prefix="acis-logical-")
    try:
        return run_in(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def run_in(d):
    binary = sys.argv[1]
    pa, pb = os.path.join(d, "a.ini"), os.path.join(d, "b.ini")
    with open(pa, "w") as f:
        f.write(PIPELINE.format(name="a", mac=SWA[0], ip=SWA[1],
                                p0=pcap_dev(0, d), p1="ring_pair:ab:a"))
    with open(pb, "w") as f:
        f.write(PIPELINE.format(name="b", mac=SWB[0], ip=SWB[1],
                                p0="ring_pair:ab:b", p1=pcap_dev(1, d)))
    unknown = Ether(src=A_MAC, dst=B_MAC) / IP(src=A_IP, dst=B_IP) / UDP(sport=1, dport=2) / \
        Raw(b"to B across the ring pair")
    arp_b = Ether(src=A_MAC, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=A_MAC, psrc=A_IP, pdst=SWB[1])
    ping_b = Ether(src=A_MAC, dst=SWB[0]) / IP(src=A_IP, dst=SWB[1]) / ICMP(type=8, id=9, seq=1) / Raw(b"b" * 32)
    ping_a = Ether(src=A_MAC, dst=SWA[0]) / IP(src=A_IP, dst=SWA[1]) / ICMP(type=8, id=9, seq=2) / Raw(b"a" * 32)
    w = PcapWriter(os.path.join(d, "in0.pcap"), linktype=1)
    for f in (unknown, arp_b, ping_b, ping_a):
        w.write(bytes(f))
    w.close()
    PcapWriter(os.path.join(d, "in1.pcap"), linktype=1).close()

    run = subprocess.run([binary, "-l", "0", "--no-huge", "-m", "512", "--no-shconf", "--no-pci",
                          "--no-telemetry", "--log-level=error", "--", "--pipeline", pa,
                          "--pipeline", pb, "--idle-exit", "1"],
                         capture_output=True, text=True, timeout=60)
    print(run.stdout)
    if run.returncode != 0:
        print(run.stderr)
    check("two logical switches start, run and exit 0 when idle", run.returncode == 0)
    check("each switch's counters are printed under its name",
          "== switch a ==" in run.stdout and "== switch b ==" in run.stdout)
    out_a = [bytes(p) for p in rdpcap(os.path.join(d, "out0.pcap"))]
    out_b = [bytes(p) for p in rdpcap(os.path.join(d, "out1.pcap"))]
    check("the unknown unicast crossed the ring pair and left b's host port untouched",
          bytes(unknown) in out_b, f"b's host port sent {len(out_b)} frames")
    arp = [Ether(f) for f in out_a if Ether(f).haslayer(ARP)]
    check("b answered ARP for its address, back across the ring",
          any(p[ARP].op == 2 and p[ARP].psrc == SWB[1] and p[ARP].hwsrc == SWB[0] for p in arp))
    icmp = [Ether(f) for f in out_a if Ether(f).haslayer(ICMP)]
    check("b answered the ping of its address",
          any(p[ICMP].type == 0 and p[IP].src == SWB[1] and p[ICMP].seq == 1 for p in icmp))
    check("a answered the ping of its own address",
          any(p[ICMP].type == 0 and p[IP].src == SWA[1] and p[ICMP].seq == 2 for p in icmp))
    check("no ping of a's address reached b's host port",
          not any(Ether(f).haslayer(ICMP) and Ether(f)[IP].dst == SWA[1] for f in out_b))
    # the ring ports' lines of each switch's summary: frames both ways
    rings = re.findall(r"^p\d\s+ring_pair:ab:([ab])\s+(\d+)\s+\d+\s+(\d+)", run.stdout, re.M)
    ends = {e: (int(rx), int(tx)) for e, rx, tx in rings}
    check("both ends of the ring pair counted frames each way (a tx = b rx, b tx = a rx)",
          set(ends) == {"a", "b"} and ends["a"][1] == ends["b"][0] and
          ends["b"][1] == ends["a"][0] and ends["a"][1] > 0 and ends["b"][1] > 0,
          f"{ends}")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
