#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The pcap files of acis_pcap.py are traffic the switch understands, also
# looped: replay a mix (every rank's JOIN, allreduce collectives, every
# rank's LEAVE, look-aside requests for both rule kinds, background)
# twice in a row, as pktgen's loop plays it, into acis-switch on net_pcap
# ports (pipelines/pktgen-pcap.ini) and count what it answered, frame by
# frame: a CTRL_ACK per JOIN and LEAVE, every RESULT of every collective
# of both passes, an answer per look-aside request, an echo per ICMP
# request, an ARP reply per ARP request, the background forwarded to the
# far port; nothing dropped (the second pass is no copy of the first).
# No pktgen needed.
#   scripts/pktgen/check.sh ACIS_SWITCH_BINARY [COUNT]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SW=${1:?usage: check.sh ACIS_SWITCH_BINARY [COUNT]}
COUNT=${2:-30}
PASSES=2
DIR=$(mktemp -d /tmp/acis-pktgen-check.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
PY=/usr/bin/python3

"$PY" "$ROOT/scripts/pktgen/acis_pcap.py" mix "$DIR/mix.pcap" --count "$COUNT" \
	--size 8192 --ranks 4 >/dev/null
"$PY" "$ROOT/scripts/pktgen/acis_pcap.py" background "$DIR/in1.pcap" --count 0 >/dev/null
# the file played PASSES times in a row: what a loop sends
"$PY" - "$DIR/mix.pcap" "$DIR/in0.pcap" "$PASSES" <<'PY'
import sys
from scapy.layers.l2 import Ether  # noqa: F401 - frames read as Ethernet
from scapy.utils import rdpcap, wrpcap
frames = rdpcap(sys.argv[1])
wrpcap(sys.argv[2], list(frames) * int(sys.argv[3]))
PY
ACIS_PCAP_DIR=$DIR "$SW" -l 0 --no-huge -m 512 --no-shconf --no-pci \
	--no-telemetry --log-level error -- \
	--pipeline "$ROOT/pipelines/pktgen-pcap.ini" --idle-exit 1 >"$DIR/switch.log" 2>&1 ||
	{ cat "$DIR/switch.log"; exit 1; }
PYTHONPATH=$ROOT/python "$PY" - "$DIR" "$COUNT" "$PASSES" <<'PY'
import sys
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.l2 import ARP
from scapy.utils import rdpcap
from acis.layer import ACiS, TYPES

d, count, passes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def kinds(path):
    k = {}
    for f in rdpcap(path):
        if ARP in f:
            key = "arp-reply" if f[ARP].op == 2 else "arp"
        elif ICMP in f:
            key = "icmp-reply" if f[ICMP].type == 0 else "icmp"
        elif TCP in f:
            key = "tcp"
        elif ACiS in f:
            key = "acis-" + TYPES.get(f[ACiS].type, str(f[ACiS].type))
        elif UDP in f and 48001 in (f[UDP].sport, f[UDP].dport):
            key = "udp-48001"
        else:
            key = "udp"
        k[key] = k.get(key, 0) + 1
    return k

sent, back, far = kinds(d + "/in0.pcap"), kinds(d + "/out0.pcap"), kinds(d + "/out1.pcap")
chunks = -(-8192 // 1416)
want0 = {"acis-CTRL_ACK": passes * 2 * 4, "acis-RESULT": passes * count * chunks * 4,
         "acis-LOOKASIDE": passes * count, "udp-48001": passes * count,
         "icmp-reply": sent.get("icmp", 0), "arp-reply": sent.get("arp", 0)}
want1 = {k: v for k, v in sent.items() if k in ("udp", "tcp")}
bad = [(k, back.get(k, 0), v) for k, v in want0.items() if back.get(k, 0) != v]
bad += [(k, far.get(k, 0), v) for k, v in want1.items() if far.get(k, 0) != v]
extra = set(back) - set(want0)
print("sent on p0:", dict(sorted(sent.items())))
print("back on p0:", dict(sorted(back.items())))
print("out of p1: ", dict(sorted(far.items())))
if bad or extra:
    for k, got, want in bad:
        print("FAIL %s: %d, want %d" % (k, got, want))
    for k in extra:
        print("FAIL unexpected %s: %d" % (k, back[k]))
    sys.exit(1)
print("ok: the switch answered every request of both passes and forwarded the background")
PY
# the switch's exit summary: nothing dropped (no acis_duplicate either)
grep -q '^drops: total=0$' "$DIR/switch.log" ||
	{ grep -A3 '^drops:' "$DIR/switch.log"; echo "FAIL: the switch dropped frames"; exit 1; }
