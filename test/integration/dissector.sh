#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The Wireshark dissector (tools/wireshark/acis.lua) under tshark:
# - frames of every type, collective, datatype, control operation and
#   payload kind, their headers written by lib/proto's encoder
#   (dissector_frames), read back field by field and in the Info column;
# - malformed frames, each raising its expert info and naming the
#   switch's drop counter;
# - the auth field: a rank's cookie shown with its value, none as 0, and
#   a JOIN refused for want of one (status AUTH);
# - acis_pcap.py's collective and mixed traffic: every DATA chunk, JOIN
#   and receipt found with its seq, rank, chunk and keys, nothing else
#   taken for ACiS, and another port reached by the heuristic, the port
#   preference and Decode As.
# Skipped (77) without tshark or its Lua. Usage:
#   dissector.sh ACIS_LUA DISSECTOR_FRAMES SOURCE_ROOT
set -uo pipefail
LUA=$1
FRAMES=$2
SRC=$3

if ! command -v tshark >/dev/null; then
	echo "SKIP: tshark is not installed (scripts/setup.sh installs it)"
	exit 77
fi
if ! tshark -v 2>/dev/null | grep -q "with Lua"; then
	echo "SKIP: this tshark is built without Lua"
	exit 77
fi
D=$(mktemp -d /tmp/acis-dissector.XXXXXX)
trap 'rm -rf "$D"' EXIT
# A home of our own: no personal preferences, and no copy of acis.lua in
# ~/.local/lib/wireshark/plugins registering the protocol a second time.
export HOME=$D XDG_CONFIG_HOME=$D/.config
fail=0

bad() { echo "FAIL - $*"; fail=1; }
ok() { echo "ok   - $*"; }

# tshark with the dissector; as root it warns on stderr ("Running as
# user root"), and Debian's init.lua runs -X scripts for root too.
ts() {
	tshark -n -X lua_script:"$LUA" "$@" 2>>"$D/stderr"
}

# expect NAME FILE: FILE's lines against stdin, with a diff on failure
expect() {
	if diff -u - "$2" >"$D/diff"; then
		ok "$1"
	else
		bad "$1 (- expected, + decoded):"
		cat "$D/diff"
	fi
}

if ! tshark -G protocols -X lua_script:"$LUA" 2>"$D/stderr" |
	grep -q "^ACiS collective protocol"; then
	bad "$LUA did not load:"
	cat "$D/stderr"
	exit 1
fi
ok "the dissector loads"

# --- frames written by lib/proto --------------------------------------
# One line a frame (dissector_frames.c has the words); numbered from 1.
"$FRAMES" "$D/frames.pcap" <<'EOF' || { bad "dissector_frames"; exit 1; }
# 1-14 DATA and RESULT: every collective, algorithms, every datatype
type=1 opcode=1 flags=2 dtype=5 op=1 job=7 comm=65536 rank=2 seq=5 chunk=1 msg_size=2000 chunk_size=1416 contributors=1 payload=0000c03f000000c0 size=584
type=1 opcode=0x47 dtype=11 op=7 job=7 comm=65536 rank=1 seq=9 chunk=5 msg_size=32 chunk_size=16 contributors=1 payload=fdff0700 size=16
type=2 opcode=6 flags=9 dtype=10 job=7 comm=65536 rank=-1 seq=3 msg_size=3 chunk_size=1416 contributors=4 payload=0102030a0b0c1415161e1f20
type=2 opcode=1 flags=3 dtype=7 op=1 job=7 comm=65536 rank=0 seq=6 msg_size=4 chunk_size=8 contributors=4 payload=003e00b4
type=2 opcode=0x12 flags=2 dtype=8 op=4 job=7 comm=65536 rank=0 root=0 seq=7 msg_size=4 chunk_size=8 contributors=4 payload=00c04040
type=1 opcode=3 flags=6 dtype=9 job=7 comm=65536 rank=0 root=0 seq=8 msg_size=4 chunk_size=8 contributors=1 payload=ff7f8001
type=1 opcode=5 flags=2 dtype=12 job=7 comm=65536 rank=3 root=0 seq=10 msg_size=4 chunk_size=8 contributors=1 payload=ffff3412
type=1 opcode=4 flags=2 dtype=10 job=7 comm=65536 rank=0 root=0 seq=12 chunk=3 msg_size=2 chunk_size=8 contributors=1 payload=0102
type=1 opcode=1 flags=2 dtype=2 op=2 job=7 comm=65536 rank=1 seq=13 msg_size=8 chunk_size=8 contributors=1 payload=feffffffffffffff
type=1 opcode=1 flags=2 dtype=4 op=5 job=7 comm=65536 rank=1 seq=14 msg_size=8 chunk_size=8 contributors=1 payload=ffffffffffffffff
type=1 opcode=0x21 flags=2 dtype=1 op=3 job=7 comm=65536 rank=1 seq=15 msg_size=8 chunk_size=8 contributors=1 payload=f9ffffff03000000
type=1 opcode=0x31 flags=2 dtype=3 op=6 job=7 comm=65536 rank=1 seq=16 msg_size=4 chunk_size=8 contributors=1 payload=00000080
type=1 opcode=1 flags=2 dtype=6 op=4 job=7 comm=65536 rank=1 seq=17 msg_size=8 chunk_size=8 contributors=1 payload=000000000000f83f
type=1 opcode=8 flags=2 job=7 comm=65536 rank=1 seq=11 contributors=1
# 15-20 ACK and NACK: one chunk, coalesced keys, refusals, a host's resend
type=3 opcode=3 job=7 comm=65536 rank=0 root=0 seq=4 chunk=3
type=3 opcode=4 job=7 comm=65536 rank=0 root=0 seq=12 chunk=3 payload=040000000500000006000000
type=4 opcode=1 job=7 comm=65536 rank=2 seq=5 chunk=2 status=1
type=4 opcode=1 job=7 comm=65536 rank=3 seq=5 chunk=2 status=10 payload=0100000003000000
type=4 opcode=5 job=7 comm=65536 rank=0 root=0 seq=10 chunk=4 status=12
type=4 opcode=1 job=7 comm=65536 rank=2 seq=5 chunk=9
# 21-33 CTRL and CTRL_ACK: every operation, replies and refusals
type=5 opcode=1 job=7 rank=1 root=4
type=6 opcode=1 job=7 comm=65536 rank=1 root=4
type=6 opcode=1 job=7 rank=1 root=4 status=7
type=5 opcode=2 job=7 comm=65536 rank=1
type=6 opcode=2 job=7 comm=65536 rank=1 status=4
type=5 opcode=3 job=7 comm=65536 rank=2 seq=6 chunk=2 msg_size=2147483647
type=5 opcode=3 job=7 comm=65536 rank=3 seq=6 chunk=-1 msg_size=2147483653
type=6 opcode=3 job=7 comm=65536 rank=2 seq=6 chunk=1 root=2 msg_size=131073
type=6 opcode=3 job=7 comm=65536 rank=3 seq=6 chunk=-1 msg_size=0xffffffff
type=5 opcode=4 job=7 comm=131073 rank=1 seq=0
type=6 opcode=4 job=7 comm=131073 rank=1 seq=0 status=3
type=5 opcode=5 job=7 comm=196610 rank=5
type=6 opcode=5 job=7 comm=196610 rank=1 root=3
# 34 LOOKASIDE
type=7 opcode=2 job=7 seq=42 rank=9 payload=0000803f000000400000404000008040
# 35 DATA to another port: taken by the heuristic
type=1 opcode=1 flags=2 dtype=5 op=1 job=7 comm=65536 rank=1 seq=5 msg_size=4 chunk_size=8 contributors=1 payload=0000803f port=47123
# 36-45 malformed, in acis_msg_parse()'s order of checks
type=1 cut=20
type=1 version=2
type=3 hdr_len=40
type=9
type=3 payload_len=100 payload=00000000
type=1 opcode=15 dtype=5 op=1 msg_size=4 chunk_size=8 payload=00000000
type=5 opcode=11
type=1 opcode=1 dtype=13 op=1 msg_size=4 chunk_size=8 payload=00000000
type=1 opcode=1 dtype=5 op=5 msg_size=4 chunk_size=8 payload=00000000
type=1 opcode=1 dtype=5 op=1 chunk=5 msg_size=4 chunk_size=8 payload=00000000
# 46 malformed on another port: not ACiS to the heuristic
type=1 version=2 port=47123
# 47-49 auth: a JOIN with its cookie, the largest cookie on another port
# (the heuristic takes any), a JOIN without one refused
type=5 opcode=1 job=8 rank=0 root=2 auth=0x123456789abc
type=1 opcode=8 flags=2 job=7 comm=65536 rank=1 seq=11 contributors=1 auth=0xffffffffffff port=47123
type=6 opcode=1 job=8 rank=0 root=2 status=14
# 50-54 the switch steering progress: a deadline set, its signal, a late
# report's answer; an SSP done and its continue
type=5 opcode=6 job=7 comm=65536 rank=1 msg_size=5000
type=6 opcode=6 flags=1 job=7 comm=65536 rank=2 seq=4 chunk=2 msg_size=5000
type=6 opcode=6 job=7 comm=65536 rank=1 seq=3 chunk=1 root=1
type=5 opcode=7 job=7 comm=65536 rank=1 seq=9 root=2
type=6 opcode=7 job=7 comm=65536 rank=3 seq=9 root=2 chunk=3
EOF

ts -r "$D/frames.pcap" -T fields -e frame.number -e _ws.col.Info >"$D/info"
expect "Info column of every message" "$D/info" <<'EOF'
1	DATA allreduce float32 sum comm=65536 seq=5 rank=2 chunk=1/2 [LAST] len=584
2	DATA reduce_scatter(ring) int16 bxor comm=65536 seq=9 rank=1 block=2 chunk=1/2 len=16
3	RESULT allgather uint8 comm=65536 seq=3 rank=none [MULTICAST,PACKED] len=12
4	RESULT allreduce float16 sum comm=65536 seq=6 rank=0 chunk=0/1 [MULTICAST,LAST] len=4
5	RESULT reduce(binomial tree) bfloat16 max comm=65536 seq=7 rank=0 chunk=0/1 [LAST] len=4
6	DATA bcast int8 comm=65536 seq=8 rank=0 chunk=0/1 [LAST,RETRANS] len=4
7	DATA gather uint16 comm=65536 seq=10 rank=3 chunk=0/1 [LAST] len=4
8	DATA scatter uint8 comm=65536 seq=12 rank=0 block=3 chunk=0/1 [LAST] len=2
9	DATA allreduce int64 prod comm=65536 seq=13 rank=1 chunk=0/1 [LAST] len=8
10	DATA allreduce uint64 band comm=65536 seq=14 rank=1 chunk=0/1 [LAST] len=8
11	DATA allreduce(recursive doubling) int32 min comm=65536 seq=15 rank=1 chunk=0/1 [LAST] len=8
12	DATA allreduce(recursive halving) uint32 bor comm=65536 seq=16 rank=1 chunk=0/1 [LAST] len=4
13	DATA allreduce float64 max comm=65536 seq=17 rank=1 chunk=0/1 [LAST] len=8
14	DATA barrier comm=65536 seq=11 rank=1 [LAST]
15	ACK bcast comm=65536 seq=4 rank=0 chunk=3
16	ACK scatter comm=65536 seq=12 rank=0 keys=4,5,6 len=12
17	NACK allreduce BUSY comm=65536 seq=5 rank=2 chunk=2
18	NACK allreduce TIMEOUT comm=65536 seq=5 rank=3 chunk=2 missing=1,3 len=8
19	NACK gather GONE comm=65536 seq=10 rank=0 chunk=4
20	NACK allreduce comm=65536 seq=5 rank=2 resend key=9
21	CTRL JOIN job=7 rank=1 size=4
22	CTRL_ACK JOIN OK job=7 rank=1 comm=65536
23	CTRL_ACK JOIN RANK_TAKEN job=7 rank=1 comm=0
24	CTRL LEAVE job=7 rank=1
25	CTRL_ACK LEAVE NOT_MEMBER job=7 rank=1
26	CTRL SPLIT comm=65536 seq=6 color=2 key=-1
27	CTRL SPLIT comm=65536 seq=6 color=none key=5
28	CTRL_ACK SPLIT OK comm=65536 seq=6 new_comm=131073 new_rank=1 new_size=2
29	CTRL_ACK SPLIT OK comm=65536 seq=6 new_comm=none new_rank=none new_size=none
30	CTRL COMM_FREE comm=131073 seq=0
31	CTRL_ACK COMM_FREE NO_COMM comm=131073 seq=0
32	CTRL COMM_QUERY job=7 comm=196610 rank=5
33	CTRL_ACK COMM_QUERY OK job=7 comm=196610 rank=1 size=3
34	LOOKASIDE handler=2 job=7 seq=42 len=16
35	DATA allreduce float32 sum comm=65536 seq=5 rank=1 chunk=0/1 [LAST] len=4
36	ACiS 20 bytes [acis_truncated]
37	ACiS version 2 type 1 [acis_bad_version]
38	ACK unknown(0) comm=0 seq=0 rank=0 chunk=0 [acis_truncated]
39	ACiS version 1 type 9 [acis_bad_type]
40	ACK unknown(0) comm=0 seq=0 rank=0 len=100 [acis_bad_length]
41	DATA unknown(15) float32 sum comm=0 seq=0 rank=0 chunk=0/1 len=4 [acis_bad_opcode]
42	CTRL unknown(11) [acis_bad_opcode]
43	DATA allreduce unknown(13) sum comm=0 seq=0 rank=0 chunk=0/1 len=4 [acis_bad_dtype]
44	DATA allreduce float32 band comm=0 seq=0 rank=0 chunk=0/1 len=4 [acis_bad_op]
45	DATA allreduce float32 sum comm=0 seq=0 rank=0 chunk=5/1 len=4 [acis_bad_chunk]
46	40000 → 47123 Len=54
47	CTRL JOIN job=8 rank=0 size=2
48	DATA barrier comm=65536 seq=11 rank=1 [LAST]
49	CTRL_ACK JOIN AUTH job=8 rank=0 comm=0
50	CTRL DEADLINE comm=65536 rank=1 period=5000us
51	CTRL_ACK DEADLINE OK comm=65536 rank=2 signal epoch=4 period=5000us [MULTICAST]
52	CTRL_ACK DEADLINE OK comm=65536 rank=1 epoch=3 done (late)
53	CTRL SSP comm=65536 rank=1 done=9 staleness=2 quorum=all
54	CTRL_ACK SSP OK comm=65536 rank=3 continue=9
EOF

# The auth field: its value (tshark prints a 64-bit field in full), and
# in the tree the 48 bits and what they are.
ts -r "$D/frames.pcap" -Y "frame.number >= 47 && frame.number <= 49" -T fields -e frame.number \
	-e acis.auth -e acis.status >"$D/auth"
ts -r "$D/frames.pcap" -Y "frame.number >= 47 && frame.number <= 49" -O acis |
	grep -o "Auth: .*" >>"$D/auth"
expect "the auth field: a cookie, none, status AUTH" "$D/auth" <<'EOF'
47	0x0000123456789abc	0
48	0x0000ffffffffffff	0
49	0x0000000000000000	14
Auth: 0x123456789abc (the rank's cookie)
Auth: 0xffffffffffff (the rank's cookie)
Auth: 0 (none)
EOF

# Payload values by datatype (little endian), and a packed result's blocks:
# "frame field=values" for the fields a frame has.
vfields="acis.value.int8 acis.value.uint8 acis.value.int16 acis.value.uint16
acis.value.int32 acis.value.uint32 acis.value.int64 acis.value.uint64
acis.value.float16 acis.value.bfloat16 acis.value.float32 acis.value.float64
acis.packed.rank"
ts -r "$D/frames.pcap" -Y "acis.type == 1 || acis.type == 2" -T fields \
	-E occurrence=a -E aggregator=, -e frame.number \
	$(printf -- '-e %s ' $vfields) |
	awk -v names="$vfields" 'BEGIN { n = split(names, f, /[ \n]+/) }
	{ s = $1; for (i = 1; i <= n; i++) if ($(i + 1) != "") s = s " " f[i] "=" $(i + 1); print s }' \
	FS='\t' >"$D/values"
expect "payload values of every datatype" "$D/values" <<'EOF'
1 acis.value.float32=1.5,-2,0,0,0,0,0,0,0,0,0,0,0,0,0,0
2 acis.value.int16=-3,7,0,0,0,0,0,0
3 acis.value.uint8=1,2,3,10,11,12,20,21,22,30,31,32 acis.packed.rank=0,1,2,3
4 acis.value.float16=1.5,-0.25
5 acis.value.bfloat16=-2,3
6 acis.value.int8=-1,127,-128,1
7 acis.value.uint16=65535,4660
8 acis.value.uint8=1,2
9 acis.value.int64=-2
10 acis.value.uint64=18446744073709551615
11 acis.value.int32=-7,3
12 acis.value.uint32=2147483648
13 acis.value.float64=1.5
14
35 acis.value.float32=1
37
41
43
44
45
48
EOF

# Display filters a user would type, and the frames each must select;
# one pass counts what each filter selects and what it selects of the
# expected frames, and a filter that fails is run again to show its frames.
filters=()
wants=()
while IFS='|' read -r filter want; do
	filters+=("$filter")
	wants+=("$want")
done <<'EOF'
acis.type == 2|3,4,5
acis.coll == "reduce_scatter"|2
acis.algo == 4|2
acis.dtype == 9 && acis.type == 1|6
acis.dtype == 11|2
acis.dtype == 12|7
acis.op == 7|2
acis.flags.packed == 1 && acis.rank == 0xffffffff|3
acis.flags.multicast == 1|3,4,51
acis.flags.retrans == 1|6
acis.block == 3 && acis.block_chunk == 0|8
acis.block == 2 && acis.block_chunk == 1|2
acis.cpr == 2|1,2
acis.offset == 1416|1
acis.ack.key == 5|16
acis.ack.count == 3|16
acis.type == 3 && !acis.payload && !acis.drop_reason|15
acis.status == "BUSY"|17
acis.missing_rank == 3|18
acis.status == 12|19
acis.nack.key == 9|20
acis.ctrl.world_size == 4|21
acis.ctrl_op == 1 && acis.type == 6 && acis.status == 0|22
acis.status == 7|23
acis.split.color == 2 && acis.split.key == -1|26
acis.split.color == 0xffffffff && acis.split.key == 5|27
acis.split.new_comm == 131073 && acis.split.new_rank == 1 && acis.split.new_size == 2|28
acis.comm.generation == 2 && acis.comm.index == 1|30,31
acis.query.rank == 1 && acis.query.size == 3|33
acis.handler == 2 && acis.seq == 42|34
udp.dstport == 47123 && acis|35,48
acis.expert.truncated|36
acis.expert.bad_version|37
acis.expert.bad_hdr_len|38
acis.expert.bad_type|39
acis.expert.bad_length|40
acis.expert.bad_opcode|41,42
acis.expert.bad_dtype|43
acis.expert.bad_op|44
acis.expert.bad_chunk|45
acis.drop_reason == "acis_truncated"|36,38
_ws.expert.severity == "Error"|36,37,38,39,40
acis.expert.status|17,18,19,23,25,31,49
acis.auth == 0x123456789abc|47
acis.auth == 0xffffffffffff && udp.dstport == 47123|48
acis.auth != 0|47,48
acis.status == "AUTH" && acis.auth == 0|49
EOF
stat="io,stat,0"
for i in "${!filters[@]}"; do
	in=$(sed 's/\([0-9]*\)/frame.number == \1/g; s/,/ || /g' <<<"${wants[$i]}")
	stat+=",${filters[$i]},(${filters[$i]}) && ($in)"
done
counts=$(ts -r "$D/frames.pcap" -q -z "$stat" |
	awk -F'|' '/<>/ { for (k = 3; k < NF - 1; k += 2) print $k + 0 }')
mapfile -t count <<<"$counts"
for i in "${!filters[@]}"; do
	n=$(tr ',' '\n' <<<"${wants[$i]}" | wc -l)
	if [ "${count[$((2 * i))]:-x}" = "$n" ] &&
		[ "${count[$((2 * i + 1))]:-x}" = "$n" ]; then
		ok "filter '${filters[$i]}'"
	else
		got=$(ts -r "$D/frames.pcap" -Y "${filters[$i]}" -T fields \
			-e frame.number | paste -sd, -)
		bad "filter '${filters[$i]}': frames '$got', expected '${wants[$i]}'"
	fi
done

# A scatter's and a reduce_scatter's RESULT name their block in rank and
# the chunk in the block (a DATA's chunk is block * cpr + chunk). So does
# alltoall's: a DATA's block is its receiver's, a RESULT's its sender's
# (rank); an ACK carries the DATA's chunk; op must be none.
"$FRAMES" "$D/results.pcap" <<'EOF' || bad "dissector_frames (results)"
type=2 opcode=4 flags=2 dtype=10 job=7 comm=65536 rank=2 root=0 seq=12 chunk=1 msg_size=20 chunk_size=8 contributors=1 payload=0102030405060708
type=2 opcode=7 flags=2 dtype=5 op=1 job=7 comm=65536 rank=3 seq=13 chunk=0 msg_size=8 chunk_size=8 contributors=4 payload=0000803f0000803f
type=1 opcode=9 dtype=10 job=7 comm=65536 rank=0 seq=14 chunk=7 msg_size=20 chunk_size=8 contributors=1 payload=0102030405060708
type=2 opcode=9 flags=2 dtype=10 job=7 comm=65536 rank=1 seq=14 chunk=2 msg_size=20 chunk_size=8 contributors=1 payload=11121314
type=3 opcode=9 job=7 comm=65536 rank=0 seq=14 chunk=7
type=1 opcode=9 dtype=5 op=1 job=7 comm=65536 rank=0 seq=15 chunk=1 msg_size=4 chunk_size=8 contributors=1 payload=00000000
EOF
ts -r "$D/results.pcap" -T fields -e _ws.col.Info -e acis.coll -e acis.block -e acis.block_chunk >"$D/results"
ts -r "$D/results.pcap" -Y 'acis.coll == "alltoall"' -O acis | grep -o "Block (rank): [^]]*" >>"$D/results"
expect "scatter, reduce_scatter and alltoall: blocks and chunks" "$D/results" <<'EOF'
RESULT scatter uint8 comm=65536 seq=12 rank=2 block=2 chunk=1/3 [LAST] len=8	4	2	1
RESULT reduce_scatter float32 sum comm=65536 seq=13 rank=3 block=3 chunk=0/1 [LAST] len=8	7	3	0
DATA alltoall uint8 comm=65536 seq=14 rank=0 block=2 chunk=1/3 len=8	9	2	1
RESULT alltoall uint8 comm=65536 seq=14 rank=1 block=1 chunk=2/3 [LAST] len=4	9	1	2
ACK alltoall comm=65536 seq=14 rank=0 chunk=7	9		
DATA alltoall float32 sum comm=65536 seq=15 rank=0 block=1 chunk=0/1 len=4 [acis_bad_op]	9	1	0
Block (rank): 2 (for rank 2)
Block (rank): 1 (from rank 1)
Block (rank): 1 (for rank 1)
EOF

# A fused call (doc/fused.md): the pattern where the algorithm goes,
# chunk 0's prefix read out, bytes whatever the datatype; a pattern past
# the five, or a reduction op on allgather_op, is refused as the switch
# refuses it.
"$FRAMES" "$D/fused.pcap" <<'EOF' || bad "dissector_frames (fused)"
type=1 opcode=0x3a dtype=5 op=1 job=7 comm=65536 rank=1 seq=16 chunk=0 msg_size=21 chunk_size=16 contributors=1 payload=04000000010000000400000082000000
type=2 opcode=0x3a flags=2 dtype=5 op=1 job=7 comm=65536 rank=1 seq=16 chunk=0 msg_size=4 chunk_size=1416 payload=0000803f
type=1 opcode=0x6a dtype=5 op=1 job=7 comm=65536 rank=1 seq=17 chunk=0 msg_size=4 chunk_size=8 payload=00000000
type=1 opcode=0x2a dtype=5 op=1 job=7 comm=65536 rank=1 seq=18 chunk=0 msg_size=4 chunk_size=8 payload=00000000
EOF
ts -r "$D/fused.pcap" -T fields -e _ws.col.Info -e acis.fused_pattern -e acis.fused.out >"$D/fused"
expect "fused calls: pattern, prefix and the refusals" "$D/fused" <<'EOF'
DATA fused(allreduce_op_allreduce) float32 sum comm=65536 seq=16 rank=1 chunk=0/2 block=4 inbound=1 out=4 op=130 len=16	3	4
RESULT fused(allreduce_op_allreduce) float32 sum comm=65536 seq=16 rank=1 chunk=0/1 [LAST] len=4	3	
DATA fused(unknown(6)) float32 sum comm=65536 seq=17 rank=1 chunk=0/1 len=4 [acis_bad_opcode]	6	
DATA fused(allgather_op) float32 sum comm=65536 seq=18 rank=1 chunk=0/1 len=4 [acis_bad_op]	2	
EOF

# --- acis_pcap.py's traffic -------------------------------------------
PCAP="/usr/bin/python3 $SRC/scripts/pktgen/acis_pcap.py"
# allreduce of int16 max, 4 ranks, 4096 bytes: 3 chunks of 1416 bytes
$PCAP collective "$D/coll.pcap" --coll allreduce --dtype int16 --op max \
	--ranks 4 --size 4096 --count 2 --job 9 --comm 65536 >/dev/null ||
	bad "acis_pcap.py collective"
ts -r "$D/coll.pcap" -Y "acis.type == 1" -T fields -e acis.seq -e acis.rank \
	-e acis.chunk -e acis.dtype -e acis.op -e acis.job -e acis.flags.last \
	>"$D/data"
for seq in 0 1; do
	for c in 0 1 2; do
		for r in 0 1 2 3; do
			printf '%s\t%s\t%s\t11\t4\t9\t%s\n' $seq $r $c \
				"$([ $c -eq 2 ] && echo 1 || echo 0)"
		done
	done
done | expect "acis_pcap.py allreduce: every DATA chunk (seq, rank, chunk, int16, max)" "$D/data"
ts -r "$D/coll.pcap" -Y "acis.ctrl_op == 1" -T fields -e acis.rank \
	-e acis.ctrl.world_size -e acis.job >"$D/join"
printf '%s\t4\t9\n' 0 1 2 3 | expect "acis_pcap.py: the JOINs" "$D/join"
ts -r "$D/coll.pcap" -Y "acis.type == 3" -T fields -E occurrence=a \
	-E aggregator=, -e acis.seq -e acis.rank -e acis.ack.count \
	-e acis.ack.key >"$D/acks"
for seq in 0 1; do
	printf "$seq\t%s\t3\t0,1,2\n" 0 1 2 3
done | expect "acis_pcap.py: every rank's receipts and their keys" "$D/acks"
n=$(ts -r "$D/coll.pcap" -Y "acis.drop_reason || _ws.expert.severity >= \"Warning\"" |
	wc -l)
[ "$n" -eq 0 ] && ok "acis_pcap.py: no frame malformed" ||
	bad "acis_pcap.py: $n frames flagged malformed"

# bcast of uint8 and a barrier: the root's DATA, the others' receipts
$PCAP collective "$D/bcast.pcap" --coll bcast --dtype uint8 --ranks 3 \
	--size 100 --count 1 >/dev/null || bad "acis_pcap.py bcast"
ts -r "$D/bcast.pcap" -Y "acis.type == 1 || acis.type == 3" -T fields \
	-e _ws.col.Info >"$D/bcast"
expect "acis_pcap.py bcast" "$D/bcast" <<'EOF'
DATA bcast uint8 comm=0 seq=0 rank=0 chunk=0/1 [LAST] len=100
ACK bcast comm=0 seq=0 rank=1 keys=0 len=4
ACK bcast comm=0 seq=0 rank=2 keys=0 len=4
EOF
$PCAP collective "$D/barrier.pcap" --coll barrier --ranks 2 --count 2 \
	>/dev/null || bad "acis_pcap.py barrier"
ts -r "$D/barrier.pcap" -Y "acis.type == 1" -T fields -e _ws.col.Info \
	>"$D/barrier"
expect "acis_pcap.py barrier" "$D/barrier" <<'EOF'
DATA barrier comm=0 seq=0 rank=0 [LAST]
DATA barrier comm=0 seq=0 rank=1 [LAST]
DATA barrier comm=0 seq=1 rank=0 [LAST]
DATA barrier comm=0 seq=1 rank=1 [LAST]
EOF

# Collectives, look-aside requests, plain UDP and background traffic to a
# switch on port 48000: ACiS is what goes to 48000, and nothing else.
$PCAP mix "$D/mix.pcap" --acis-port 48000 --count 3 --size 2048 --handler 5 \
	>/dev/null || bad "acis_pcap.py mix"
want=$(tshark -n -r "$D/mix.pcap" -Y "udp.dstport == 48000" 2>/dev/null | wc -l)
mix_count() {
	ts -r "$D/mix.pcap" "$@" -Y acis | wc -l
}
[ "$want" -gt 30 ] || bad "acis_pcap.py mix: only $want frames to port 48000"
n=$(mix_count)
[ "$n" -eq "$want" ] && ok "heuristic: all $want ACiS frames on port 48000" ||
	bad "heuristic: $n ACiS frames, $want sent to port 48000"
n=$(ts -r "$D/mix.pcap" -Y "acis && udp.dstport != 48000" | wc -l)
[ "$n" -eq 0 ] && ok "heuristic: no other traffic taken for ACiS" ||
	bad "heuristic: $n frames of other traffic taken for ACiS"
n=$(ts -r "$D/mix.pcap" -Y "acis.type == 7 && acis.handler == 5" | wc -l)
[ "$n" -eq 3 ] && ok "mix: the 3 look-aside requests to handler 5" ||
	bad "mix: $n look-aside requests to handler 5, expected 3"
n=$(mix_count --disable-heuristic acis_udp)
[ "$n" -eq 0 ] && ok "heuristic off: port 48000 not decoded" ||
	bad "heuristic off: $n frames decoded on port 48000"
n=$(mix_count --disable-heuristic acis_udp -o acis.udp_port:48000)
[ "$n" -eq "$want" ] && ok "preference acis.udp_port:48000" ||
	bad "preference acis.udp_port:48000: $n frames of $want"
n=$(mix_count --disable-heuristic acis_udp -d udp.port==48000,acis)
[ "$n" -eq "$want" ] && ok "Decode As udp.port==48000,acis" ||
	bad "Decode As udp.port==48000,acis: $n frames of $want"

if grep -i "lua.*error\|error.*lua" "$D/stderr" >/dev/null; then
	bad "Lua errors:"
	grep -i "lua" "$D/stderr"
fi
exit "$fail"
