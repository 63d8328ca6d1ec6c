#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The acis-switch binary on bad pipeline files and options: a non-zero exit
# and a message naming the file, the line and what was expected; never a
# crash; and acisctl on requests and socket paths it cannot send whole.
# Usage: bad_config.sh ACIS_SWITCH ROOT ACISCTL
set -uo pipefail
SW=$1
ROOT=$2
CTL=$3
D=$(mktemp -d /tmp/acis-badcfg.XXXXXX)
first=
trap '[ -z "$first" ] || { kill "$first"; wait "$first"; } 2>/dev/null; rm -rf "$D"' EXIT
EAL=(-l 0 --no-huge -m 256 --no-shconf --no-pci --no-telemetry --log-level=error)
pass=0 fail=0

# expect_cmd NAME EXPECTED_RC REGEX -- COMMAND ARGS...: the command exits
# EXPECTED_RC and says something matching REGEX
expect_cmd() {
	local name=$1 want=$2 re=$3; shift 4
	local out rc
	out=$("$@" 2>&1); rc=$?
	if [ "$rc" -eq "$want" ] && grep -qE -- "$re" <<<"$out"; then
		echo "ok   - $name"; pass=$((pass + 1))
	else
		echo "FAIL - $name (rc=$rc, want $want, /$re/)"; echo "$out" | tail -5
		fail=$((fail + 1))
	fi
}
# expect NAME EXPECTED_RC REGEX -- ARGS...: acis-switch ARGS
expect() {
	expect_cmd "$1" "$2" "$3" -- "$SW" "${@:5}"
}
# expect_ctl NAME EXPECTED_RC REGEX -- ARGS...: acisctl ARGS, no switch needed
expect_ctl() {
	expect_cmd "$1" "$2" "$3" -- "$CTL" "${@:5}"
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
expect_cmd "an unset variable is named with its line" 1 \
	'pcap.ini:[0-9]*: \$\{ACIS_PCAP_DIR\} is not set' -- \
	env -u ACIS_PCAP_DIR "$SW" --check -p "$ROOT/pipelines/pcap.ini"
expect "a missing pipeline file is named" 1 "nope.ini: cannot open" -- --check -p "$D/nope.ini"
expect "no --pipeline is a usage error" 2 "--pipeline FILE is required" -- "${EAL[@]}" --
expect "a bad option value is refused" 2 "--idle-exit: expected a whole number" -- \
	--idle-exit -3 -p "$D/mac.ini"
expect "an unknown option is refused with usage" 2 "usage: acis-switch" -- --bogus -p x

# a value cut short would be another value: refused, never cut
printf '[switch]\nmac = 02:ac:15:00:00:01\nip = 10.77.0.1\n[port a]\ndev = net_null0\n[collective]\ncontrol_from = 10.0.0.1%800s,10.0.0.2\n' \
	"" >"$D/ctl.ini"
expect "a control_from list longer than the switch holds is refused" 1 \
	"ctl.ini:7: control_from: a list of 817 characters, at most 767" -- --check -p "$D/ctl.ini"
printf '[switch]\nmac = 02:ac:15:00:00:01\nip = 10.77.0.1\nname = ${ACIS_TEST_NONE:-}\n' >"$D/empty.ini"
expect_cmd "a value that expands to nothing is refused with its line" 1 \
	"empty.ini:4: 'name = \\\$\\{ACIS_TEST_NONE:-\\}' is empty once" -- \
	env -u ACIS_TEST_NONE "$SW" --check -p "$D/empty.ini"
expect "a directory for a pipeline says why it cannot be read" 1 \
	"read error: Is a directory" -- --check -p "$D"

expect_ctl "acisctl refuses a request too long to send whole" 2 \
	"acisctl: request of [0-9]+ characters, at most 1023" -- \
	-s "$D/none.sock" comm-create "7:$(seq -s, 0 400)"
expect_ctl "acisctl refuses a socket path too long for a socket" 2 \
	"is longer than 107 characters" -- -s "$D/$(printf 's%.0s' $(seq 120))" info
expect_ctl "acisctl refuses a --file-prefix too long for a socket" 2 \
	"give a shorter --file-prefix" -- -f "$(printf 'p%.0s' $(seq 120))" info
expect_ctl "acisctl names a switch it cannot reach" 1 \
	"cannot reach a switch at $D/none.sock" -- -s "$D/none.sock" info

# one switch per file prefix: a second one on a prefix in use is refused,
# naming it and the running process, and the first keeps its telemetry
cat >"$D/null.ini" <<EOI
[switch]
mac = 02:ac:15:00:00:01
ip = 10.77.0.1
[port a]
dev = net_null0
EOI
PFX=acis-badcfg-$$
EAL_T=(-l 0 --no-huge -m 256 --no-shconf --no-pci --log-level=error --file-prefix "$PFX")
"$SW" "${EAL_T[@]}" -- -p "$D/null.ini" --idle-sleep 100 >"$D/first.log" 2>&1 &
first=$!
for _ in $(seq 100); do
	"$CTL" -f "$PFX" info >/dev/null 2>&1 && break
	sleep 0.1
done
expect "a second switch on a file prefix in use is refused" 1 \
	"--file-prefix $PFX is in use: a DPDK process \(pid $first\) answers" -- \
	"${EAL_T[@]}" -- -p "$D/null.ini"
expect_ctl "the first switch still answers on its prefix" 0 '"pipeline"' -- -f "$PFX" info
kill "$first" 2>/dev/null
wait "$first" 2>/dev/null
first=

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
