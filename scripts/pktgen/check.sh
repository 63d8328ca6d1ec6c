#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The pcap files of acis_pcap.py are traffic the switch understands:
# replay a mix (every rank's JOIN, allreduce collectives, look-aside
# requests for both rule kinds, background) into acis-switch on net_pcap
# ports (pipelines/pktgen-pcap.ini) and count what it answered, frame by
# frame: a CTRL_ACK per rank, every RESULT of every collective, an answer
# per look-aside request, an echo per ICMP request, an ARP reply per ARP
# request, the background forwarded to the far port; nothing dropped.
# No pktgen needed.
#   scripts/pktgen/check.sh ACIS_SWITCH_BINARY [COUNT]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SW=${1:?usage: check.sh ACIS_SWITCH_BINARY [COUNT]}
COUNT=${2:-30}
DIR=$(mktemp -d /tmp/acis-pktgen-check.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
PY=/usr/bin/python3

"$PY" "$ROOT/scripts/pktgen/acis_pcap.py" mix "$DIR/in0.pcap" --count "$COUNT" \
	--size 8192 --ranks 4 >/dev/null
"$PY" "$ROOT/scripts/pktgen/acis_pcap.py" background "$DIR/in1.pcap" --count 0 >/dev/null
ACIS_PCAP_DIR=$DIR "$SW" -l 0 --no-huge -m 512 --no-shconf --no-pci \
	--no-telemetry --log-level error -- \
	--pipeline "$ROOT/pipelines/pktgen-pcap.ini" --idle-exit 1 >"$DIR/switch.log" 2>&1 ||
	{ cat "$DIR/switch.log"; exit 1; }
"$PY" - "$DIR" "$COUNT" <<'PY'
import struct, sys
d, count = sys.argv[1], int(sys.argv[2])

def frames(path):
    b = open(path, "rb").read()
    off, out = 24, []
    while off + 16 <= len(b):
        n = struct.unpack("<I", b[off + 8:off + 12])[0]
        out.append(b[off + 16:off + 16 + n])
        off += 16 + n
    return out

def kinds(path):
    k = {}
    for f in frames(path):
        et = struct.unpack("!H", f[12:14])[0]
        if et == 0x0806:
            key = "arp-reply" if f[21] == 2 else "arp"
        elif f[23] == 1:
            key = "icmp-reply" if f[34] == 0 else "icmp"
        elif f[23] == 6:
            key = "tcp"
        elif 47000 in struct.unpack("!HH", f[34:38]):
            key = "acis-type-%d" % f[43]
        elif 48001 in struct.unpack("!HH", f[34:38]):
            key = "udp-48001"
        else:
            key = "udp"
        k[key] = k.get(key, 0) + 1
    return k

sent, back, far = kinds(d + "/in0.pcap"), kinds(d + "/out0.pcap"), kinds(d + "/out1.pcap")
chunks = -(-8192 // 1416)
want0 = {"acis-type-6": 4, "acis-type-2": count * chunks * 4, "acis-type-7": count,
         "udp-48001": count, "icmp-reply": sent.get("icmp", 0),
         "arp-reply": sent.get("arp", 0)}
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
print("ok: the switch answered every request and forwarded the background")
PY
# the switch's exit summary: nothing dropped
grep -q '^drops: total=0$' "$DIR/switch.log" ||
	{ grep -A3 '^drops:' "$DIR/switch.log"; echo "FAIL: the switch dropped frames"; exit 1; }
