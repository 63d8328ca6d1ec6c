#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The acis-switch binary on bad pipeline files and options: a non-zero exit
# and a message naming the file, the line and what was expected; never a
# crash. Usage: bad_config.sh ACIS_SWITCH ROOT
set -uo pipefail
SW=$1
ROOT=$2
D=$(mktemp -d /tmp/acis-badcfg.XXXXXX)
trap 'rm -rf "$D"' EXIT
EAL=(-l 0 --no-huge -m 256 --no-shconf --no-pci --no-telemetry --log-level=error)
pass=0 fail=0

# expect NAME EXPECTED_RC REGEX -- ARGS...
expect() {
	local name=$1 want=$2 re=$3; shift 4
	local out rc
	out=$("$SW" "$@" 2>&1); rc=$?
	if [ "$rc" -eq "$want" ] && grep -qE -- "$re" <<<"$out"; then
		echo "ok   - $name"; pass=$((pass + 1))
	else
		echo "FAIL - $name (rc=$rc, want $want, /$re/)"; echo "$out" | tail -5
		fail=$((fail + 1))
	fi
}

cat >"$D/lcore.ini" <<EOI
[switch]
mac = 02:ac:15:00:00:01
ip = 10.77.0.1
[port a]
dev = net_null0
[lcore 1]
role = rx worker
rx = a
EOI
expect "an lcore the EAL was not given is named with its line" 1 \
	"lcore.ini:6: \[lcore 1\]: lcore 1 is not enabled" -- "${EAL[@]}" -- -p "$D/lcore.ini"

cat >"$D/dev.ini" <<EOI
[switch]
mac = 02:ac:15:00:00:01
ip = 10.77.0.1
[port a]
dev = net_af_packet0,iface=acis-no-such-if
EOI
expect "a device that cannot be probed is named with its line" 1 \
	"dev.ini:5: dev: cannot probe 'net_af_packet0,iface=acis-no-such-if'" -- "${EAL[@]}" -- -p "$D/dev.ini"

# DPDK's AF_PACKET driver refuses any MTU above 1500 whatever its ring
# holds: its ring's slots decide, and frames they cannot hold would be
# lost without a word (every collective sized to the MTU timing out)
cat >"$D/jumbo.ini" <<EOI
[switch]
mac = 02:ac:15:00:00:01
ip = 10.77.0.1
mtu = 9000
[port a]
dev = net_af_packet0,iface=lo
EOI
expect "an AF_PACKET ring too small for the MTU is named with its line and the fix" 1 \
	"jumbo.ini:6: \[port a\]: MTU 9000: the AF_PACKET ring's slots hold frames of 1984 bytes, not 9022; give dev framesz=9216 or more" \
	-- "${EAL[@]}" -- -p "$D/jumbo.ini"

cat >"$D/mac.ini" <<EOI
[switch]
mac = 02:ac:15:00:00
ip = 10.77.0.1
EOI
expect "a bad MAC names the line and the expected form" 1 \
	"mac.ini:2: mac: expected a unicast MAC xx:xx:xx:xx:xx:xx" -- "${EAL[@]}" -- -p "$D/mac.ini"
expect "--check reports the same without an EAL" 1 \
	"mac.ini:2: mac: expected" -- --check -p "$D/mac.ini"
expect "--check accepts the shipped testbed pipeline" 0 "ok \(4 ports" -- \
	--check -p "$ROOT/pipelines/testbed-af_packet.ini"
expect "--check accepts the shipped NIC pipeline" 0 "ok \(2 ports, 3 lcores" -- \
	--check -p "$ROOT/pipelines/nic-2port.ini"
ACIS_PCAP_DIR=/tmp expect "--check expands \${ACIS_PCAP_DIR} in the pcap pipeline" 0 "ok \(4 ports" -- \
	--check -p "$ROOT/pipelines/pcap.ini"
env -u ACIS_PCAP_DIR "$SW" --check -p "$ROOT/pipelines/pcap.ini" >"$D/out" 2>&1
if [ $? -eq 1 ] && grep -q 'pcap.ini:[0-9]*: ${ACIS_PCAP_DIR} is not set' "$D/out"; then
	echo "ok   - an unset variable is named with its line"; pass=$((pass + 1))
else
	echo "FAIL - unset variable"; cat "$D/out"; fail=$((fail + 1))
fi
expect "a missing pipeline file is named" 1 "nope.ini: cannot open" -- --check -p "$D/nope.ini"
expect "no --pipeline is a usage error" 2 "--pipeline FILE is required" -- "${EAL[@]}" --
expect "a bad option value is refused" 2 "--idle-exit: expected a whole number" -- \
	--idle-exit -3 -p "$D/mac.ini"
expect "an unknown option is refused with usage" 2 "usage: acis-switch" -- --bogus -p x

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
