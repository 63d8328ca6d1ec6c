#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Integration: acis-switch itself on net_pcap ports (pipelines/pcap.ini).

Frames are written to in0.pcap (ports 1-3 replay empty captures), the
switch runs until idle, and every port's out*.pcap is checked frame by
frame: what must be forwarded byte-identical, flooded, answered, or
dropped (with the drop counters from the switch's exit summary).
Usage: pcap_run.py ACIS_SWITCH_BINARY PIPELINE [--two-lcores]
With --two-lcores the same run goes through an rx lcore handing off to a
worker lcore on another thread (handoff ring, worker TX queues).
"""
import os
import re
import subprocess
import sys
import shutil
import tempfile

from scapy.all import ARP, ICMP, IP, UDP, Dot1Q, Ether, Raw, rdpcap
from scapy.utils import PcapWriter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from acis.layer import ACIS_PORT, join  # noqa: E402

from checks import check, summary  # noqa: E402

SW_MAC, SW_IP = "02:ac:15:00:00:01", "10.77.0.1"
A = ("02:00:00:00:00:0a", "10.77.0.10")
B = ("02:00:00:00:00:0b", "10.77.0.11")



def main():
    d = tempfile.mkdtemp(prefix="acis-pcap-")
    try:
        return run_in(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def run_in(d):
    binary, pipeline = sys.argv[1], sys.argv[2]
    two = "--two-lcores" in sys.argv[3:]
    lcores = "0"
    if two:
        with open(pipeline) as f:
            text = f.read()
        pipeline = os.path.join(d, "two-lcores.ini")
        with open(pipeline, "w") as f:
            f.write(text + "\n[lcore 0]\nrole = rx\nrx = p0 p1 p2 p3\n[lcore 1]\nrole = worker\n")
        lcores = "0-1"
    unknown = Ether(src=A[0], dst=B[0]) / IP(src=A[1], dst=B[1]) / UDP(sport=1, dport=2) / Raw(b"unknown unicast")
    bcast = Ether(src=A[0], dst="ff:ff:ff:ff:ff:ff") / Raw(b"\x00" * 46)
    arp = Ether(src=A[0], dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=A[0], psrc=A[1], pdst=SW_IP)
    echo = Ether(src=A[0], dst=SW_MAC) / IP(src=A[1], dst=SW_IP) / ICMP(type=8, id=7, seq=1) / Raw(b"x" * 32)
    # a JOIN cut short: 40 of its 54 header bytes
    acis = Ether(src=A[0], dst=SW_MAC) / IP(src=A[1], dst=SW_IP) / UDP(sport=5000, dport=ACIS_PORT) / \
        Raw(bytes(join(7, 0, 2))[:40])
    runt = Raw(bytes(unknown)[:12])
    same = Ether(src=B[0], dst=A[0]) / IP(src=B[1], dst=A[1]) / UDP() / Raw(b"A is on port 0, so is B now")
    vlan = Ether(src=A[0], dst="02:00:00:00:00:99") / Dot1Q(vlan=100) / IP(src=A[1], dst="10.77.0.99") / UDP() / Raw(b"tagged")
    frames = [unknown, bcast, arp, echo, acis, runt, same, vlan]
    w = PcapWriter(os.path.join(d, "in0.pcap"), linktype=1)
    for f in frames:
        w.write(bytes(f))
    w.close()
    for i in range(1, 4):
        PcapWriter(os.path.join(d, f"in{i}.pcap"), linktype=1).close()

    env = dict(os.environ, ACIS_PCAP_DIR=d)
    run = subprocess.run([binary, "-l", lcores, "--no-huge", "-m", "512", "--no-shconf", "--no-pci",
                          "--no-telemetry", "--log-level=error", "--", "--pipeline", pipeline,
                          "--idle-exit", "1"], env=env, capture_output=True, text=True, timeout=60)
    print(run.stdout)
    if run.returncode != 0:
        print(run.stderr)
    check("switch exits 0 after the capture is replayed", run.returncode == 0)
    paths = [os.path.join(d, f"out{i}.pcap") for i in range(4)]
    check("every port wrote its capture", all(os.path.exists(p) for p in paths))
    out = [rdpcap(p) if os.path.exists(p) else [] for p in paths]
    raw = [[bytes(p) for p in o] for o in out]

    for i in (1, 2, 3):
        check(f"port {i} got the unknown unicast, broadcast and tagged frame, byte-identical",
              raw[i] == [bytes(unknown), bytes(bcast), bytes(vlan)])
    check("port 0 sent exactly the ARP reply and the echo reply", len(out[0]) == 2)
    if len(out[0]) == 2:
        r = out[0][0]
        check("ARP reply says the switch's MAC owns its IP",
              ARP in r and r[ARP].op == 2 and r[ARP].hwsrc == SW_MAC and r[ARP].psrc == SW_IP
              and r[ARP].pdst == A[1] and r.dst == A[0])
        e = out[0][1]
        ok = ICMP in e and e[ICMP].type == 0 and e[IP].src == SW_IP and e[IP].dst == A[1]
        if ok:
            chk = e[IP].chksum, e[ICMP].chksum
            del e[IP].chksum, e[ICMP].chksum
            e2 = Ether(bytes(e))
            ok = (e2[IP].chksum, e2[ICMP].chksum) == chk and bytes(e[ICMP].payload) == b"x" * 32
        check("echo reply from the switch with valid checksums and the same data", ok)
    drops = dict(re.findall(r"(\w+)=(\d+)", (re.findall(r"^drops:.*$", run.stdout, re.M) or [""])[0]))
    check("ACiS message cut short counted as acis_truncated", drops.get("acis_truncated") == "1")
    check("runt counted as eth_runt", drops.get("eth_runt") == "1")
    check("frame back to its own port counted as l2_same_port", drops.get("l2_same_port") == "1")
    check("exactly three drops in all", drops.get("total") == "3")
    if two:
        stages = dict(re.findall(r"(\w+)=(\d+)", (re.findall(r"^stage packets:.*$", run.stdout, re.M) or [""])[0]))
        check("every packet but the runt crossed the handoff ring",
              stages.get("handoff") == "7" and stages.get("ring_rx") == "7")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
