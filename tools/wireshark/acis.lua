-- SPDX-License-Identifier: BSD-3-Clause
--
-- acis.lua: a Wireshark/tshark dissector for the ACiS wire protocol,
-- version 1 (doc/wire-format.md; lib/proto is the authority).
--
--   tshark -X lua_script:tools/wireshark/acis.lua -r capture.pcap
--   cp tools/wireshark/acis.lua ~/.local/lib/wireshark/plugins/
--
-- Registered on UDP port 47000 (preference acis.udp_port), in "Decode
-- As..." for any UDP port, and as a UDP heuristic ("acis_udp") that takes
-- a well-formed version 1 header on any port. Header checks follow
-- acis_msg_parse() in order; a failed one raises expert info and names
-- the switch's drop counter (acis.drop_reason). doc/wireshark.md has more.
--
-- Written for the Lua of Wireshark 3.x and 4.x (5.1 to 5.4): no bit
-- operators, arithmetic only.

local acis = Proto("acis", "ACiS collective protocol")

local HDR_LEN = 54
local VERSION = 1
local RANK_NONE = 0xffffffff
local DEFAULT_PORT = 47000

-- Names as in lib/proto/acis_proto.h and proto.c.
local types = {
	[1] = "DATA", [2] = "RESULT", [3] = "ACK", [4] = "NACK",
	[5] = "CTRL", [6] = "CTRL_ACK", [7] = "LOOKASIDE",
}
local colls = {
	[1] = "allreduce", [2] = "reduce", [3] = "bcast", [4] = "scatter",
	[5] = "gather", [6] = "allgather", [7] = "reduce_scatter",
	[8] = "barrier", [9] = "alltoall", [10] = "fused",
}
-- a fused call's pattern, in the opcode's high 4 bits (doc/fused.md)
local patterns = {
	[1] = "allreduce_op", [2] = "allgather_op",
	[3] = "allreduce_op_allreduce", [4] = "scatter_op_reduce",
	[5] = "allreduce_op_alltoall",
}
local algos = {
	[0] = "default", [1] = "binomial tree", [2] = "recursive doubling",
	[3] = "recursive halving", [4] = "ring",
}
local ctrl_ops = {
	[1] = "JOIN", [2] = "LEAVE", [3] = "SPLIT", [4] = "COMM_FREE",
	[5] = "COMM_QUERY", [6] = "DEADLINE", [7] = "SSP", [8] = "INSTALL",
	[9] = "OP_CREATE", [10] = "OP_FREE",
}
local dtypes = {
	[1] = "int32", [2] = "int64", [3] = "uint32", [4] = "uint64",
	[5] = "float32", [6] = "float64", [7] = "float16", [8] = "bfloat16",
	[9] = "int8", [10] = "uint8", [11] = "int16", [12] = "uint16",
}
-- the field's display: 0 in messages that carry no elements
local dtype_vals = { [0] = "none" }
for k, v in pairs(dtypes) do
	dtype_vals[k] = v
end
local dtype_size = {
	[1] = 4, [2] = 8, [3] = 4, [4] = 8, [5] = 4, [6] = 8, [7] = 2,
	[8] = 2, [9] = 1, [10] = 1, [11] = 2, [12] = 2,
}
local float_dtype = { [5] = true, [6] = true, [7] = true, [8] = true }
local ops = {
	[0] = "none", [1] = "sum", [2] = "prod", [3] = "min", [4] = "max",
	[5] = "band", [6] = "bor", [7] = "bxor",
}
-- 128..255: user-defined ops (a CGRA program a job registered)
for k = 128, 255 do
	ops[k] = "user"
end
local statuses = {
	[0] = "OK", [1] = "BUSY", [2] = "NO_JOB", [3] = "NO_COMM",
	[4] = "NOT_MEMBER", [5] = "BAD_ARGS", [6] = "MISMATCH",
	[7] = "RANK_TAKEN", [8] = "SIZE_MISMATCH", [9] = "FULL",
	[10] = "TIMEOUT", [11] = "PENDING", [12] = "GONE", [13] = "LIMIT",
	[14] = "AUTH", [15] = "OP_FAULT", [16] = "NO_OP",
}
local T_DATA, T_RESULT, T_ACK, T_NACK = 1, 2, 3, 4
local T_CTRL, T_CTRL_ACK, T_LOOKASIDE = 5, 6, 7
local C_SCATTER, C_REDUCE_SCATTER, C_BARRIER, C_ALLTOALL = 4, 7, 8, 9
local C_FUSED, FUSED_ALLGATHER_OP = 10, 2
local CTRL_JOIN, CTRL_LEAVE, CTRL_SPLIT = 1, 2, 3
local CTRL_COMM_FREE, CTRL_COMM_QUERY = 4, 5
local CTRL_DEADLINE, CTRL_SSP, CTRL_INSTALL = 6, 7, 8
local F_MULTICAST, F_LAST, F_RETRANS, F_PACKED = 0x01, 0x02, 0x04, 0x08
local F_PARTIAL = 0x10
local S_TIMEOUT = 10

local pf = {
	version = ProtoField.uint8("acis.version", "Version", base.DEC),
	type = ProtoField.uint8("acis.type", "Type", base.DEC, types),
	opcode = ProtoField.uint8("acis.opcode", "Opcode", base.HEX),
	coll = ProtoField.uint8("acis.coll", "Collective", base.DEC, colls,
		0x0f),
	algo = ProtoField.uint8("acis.algo", "Algorithm", base.DEC, algos,
		0xf0),
	pattern = ProtoField.uint8("acis.fused_pattern", "Fused pattern",
		base.DEC, patterns, 0xf0),
	fused_block = ProtoField.uint32("acis.fused.block", "Block bytes",
		base.DEC),
	fused_inbound = ProtoField.uint32("acis.fused.inbound",
		"Inbound bytes", base.DEC),
	fused_out = ProtoField.uint32("acis.fused.out", "Op output bytes",
		base.DEC),
	fused_map = ProtoField.uint8("acis.fused.op", "Op", base.DEC),
	ctrl_op = ProtoField.uint8("acis.ctrl_op", "Control operation",
		base.DEC, ctrl_ops),
	handler = ProtoField.uint8("acis.handler", "Look-aside handler",
		base.DEC),
	flags = ProtoField.uint8("acis.flags", "Flags", base.HEX),
	f_multicast = ProtoField.bool("acis.flags.multicast", "MULTICAST", 8,
		nil, F_MULTICAST, "result sent to every member"),
	f_last = ProtoField.bool("acis.flags.last", "LAST", 8, nil, F_LAST,
		"last chunk of the message"),
	f_retrans = ProtoField.bool("acis.flags.retrans", "RETRANS", 8, nil,
		F_RETRANS, "a retransmission"),
	f_packed = ProtoField.bool("acis.flags.packed", "PACKED", 8, nil,
		F_PACKED, "result holds every rank's block"),
	f_partial = ProtoField.bool("acis.flags.partial", "PARTIAL", 8, nil,
		F_PARTIAL, "switch to switch in a fabric's tree: a partial " ..
		"up, or the result down (doc/fabric.md)"),
	dtype = ProtoField.uint8("acis.dtype", "Datatype", base.DEC,
		dtype_vals),
	op = ProtoField.uint8("acis.op", "Reduction op", base.DEC, ops),
	hdr_len = ProtoField.uint16("acis.hdr_len", "Header length", base.DEC),
	job = ProtoField.uint32("acis.job", "Job", base.DEC),
	comm = ProtoField.uint32("acis.comm", "Communicator", base.DEC),
	comm_gen = ProtoField.uint32("acis.comm.generation", "Generation",
		base.DEC),
	comm_index = ProtoField.uint32("acis.comm.index", "Index", base.DEC),
	rank = ProtoField.uint32("acis.rank", "Rank", base.DEC),
	root = ProtoField.uint32("acis.root", "Root", base.DEC),
	seq = ProtoField.uint32("acis.seq", "Sequence", base.DEC),
	chunk = ProtoField.uint32("acis.chunk", "Chunk", base.DEC),
	msg_size = ProtoField.uint64("acis.msg_size", "Message size (bytes per rank)",
		base.DEC),
	payload_len = ProtoField.uint16("acis.payload_len", "Payload length",
		base.DEC),
	chunk_size = ProtoField.uint16("acis.chunk_size", "Chunk size",
		base.DEC),
	contributors = ProtoField.uint16("acis.contributors", "Contributors",
		base.DEC),
	status = ProtoField.uint16("acis.status", "Status", base.DEC, statuses),
	-- 48 bits on the wire: the rank's cookie, 0 for none
	auth = ProtoField.uint64("acis.auth", "Auth", base.HEX),
	hdr_ext = ProtoField.bytes("acis.hdr_ext", "Header extension"),

	-- derived from the header (generated items)
	cpr = ProtoField.uint64("acis.cpr", "Chunks per block", base.DEC),
	block = ProtoField.uint32("acis.block", "Block (rank)", base.DEC),
	block_chunk = ProtoField.uint32("acis.block_chunk", "Chunk in block",
		base.DEC),
	offset = ProtoField.uint64("acis.offset", "Offset in block", base.DEC),
	elements = ProtoField.uint32("acis.elements", "Elements", base.DEC),

	-- control operations: what the generic fields mean for each
	world_size = ProtoField.uint32("acis.ctrl.world_size", "World size",
		base.DEC),
	split_color = ProtoField.uint32("acis.split.color", "Color", base.DEC),
	split_key = ProtoField.int64("acis.split.key", "Key", base.DEC),
	split_comm = ProtoField.uint32("acis.split.new_comm",
		"New communicator", base.DEC),
	split_rank = ProtoField.uint32("acis.split.new_rank", "New rank",
		base.DEC),
	split_size = ProtoField.uint32("acis.split.new_size", "New size",
		base.DEC),
	query_rank = ProtoField.uint32("acis.query.rank",
		"Rank in communicator", base.DEC),
	query_size = ProtoField.uint32("acis.query.size",
		"Communicator size", base.DEC),

	-- payloads
	payload = ProtoField.bytes("acis.payload", "Payload"),
	ack_count = ProtoField.uint32("acis.ack.count", "Keys listed",
		base.DEC),
	ack_key = ProtoField.uint32("acis.ack.key", "Key", base.DEC),
	nack_key = ProtoField.uint32("acis.nack.key", "Key to send again",
		base.DEC),
	missing_rank = ProtoField.uint32("acis.missing_rank", "Missing rank",
		base.DEC),
	block_rank = ProtoField.uint32("acis.packed.rank", "Block of rank",
		base.DEC),
	v_int8 = ProtoField.int8("acis.value.int8", "int8"),
	v_uint8 = ProtoField.uint8("acis.value.uint8", "uint8"),
	v_int16 = ProtoField.int16("acis.value.int16", "int16"),
	v_uint16 = ProtoField.uint16("acis.value.uint16", "uint16"),
	v_int32 = ProtoField.int32("acis.value.int32", "int32"),
	v_uint32 = ProtoField.uint32("acis.value.uint32", "uint32"),
	v_int64 = ProtoField.int64("acis.value.int64", "int64"),
	v_uint64 = ProtoField.uint64("acis.value.uint64", "uint64"),
	v_float32 = ProtoField.float("acis.value.float32", "float32"),
	v_float64 = ProtoField.double("acis.value.float64", "float64"),
	v_float16 = ProtoField.double("acis.value.float16", "float16"),
	v_bfloat16 = ProtoField.double("acis.value.bfloat16", "bfloat16"),

	drop_reason = ProtoField.string("acis.drop_reason",
		"Switch would drop it as"),
}
acis.fields = pf

-- Expert info, one per acis_msg_parse() fault; abbreviations are
-- filterable (e.g. acis.expert.bad_version).
local M, P = expert.group.MALFORMED, expert.group.PROTOCOL
local E, W, N = expert.severity.ERROR, expert.severity.WARN,
	expert.severity.NOTE
local ex, ex_text = {}, {}
for _, e in ipairs({
	{ "truncated", "ACiS message shorter than its 54-byte header", M, E },
	{ "bad_version", "ACiS version is not 1", M, E },
	{ "bad_hdr_len", "hdr_len below 54 or beyond the message", M, E },
	{ "bad_type", "Unknown ACiS message type", M, E },
	{ "bad_length", "hdr_len + payload_len differs from the UDP payload",
		M, E },
	{ "bad_opcode", "Unknown collective, algorithm or control operation",
		P, W },
	{ "bad_dtype", "Unknown datatype", P, W },
	{ "bad_op", "Op not defined for this collective or datatype", P, W },
	{ "bad_chunk", "Chunk, chunk size or payload outside the message",
		P, W },
	{ "status", "The switch refused a request", expert.group.RESPONSE_CODE,
		N },
	{ "retrans", "Retransmitted chunk", expert.group.SEQUENCE, N },
}) do
	ex[e[1]] = ProtoExpert.new("acis.expert." .. e[1], e[2], e[3], e[4])
	ex_text[ex[e[1]]] = e[2]
end
acis.experts = {
	ex.truncated, ex.bad_version, ex.bad_hdr_len, ex.bad_type,
	ex.bad_length, ex.bad_opcode, ex.bad_dtype, ex.bad_op, ex.bad_chunk,
	ex.status, ex.retrans,
}

acis.prefs.udp_port = Pref.uint("UDP port", DEFAULT_PORT,
	"UDP port of the ACiS switch ([switch] udp_port)")
acis.prefs.max_values = Pref.uint("Payload values shown", 16,
	"Elements of a DATA or RESULT payload decoded in the tree (0: none)")

local function has(flags, bit)
	return math.floor(flags / bit) % 2 == 1
end

-- IEEE half precision and bfloat16 (the top half of a float32).
local function half_value(bits, ebits, mbits)
	local bias = 2 ^ (ebits - 1) - 1
	local sign = math.floor(bits / 2 ^ (ebits + mbits)) == 1 and -1 or 1
	local e = math.floor(bits / 2 ^ mbits) % 2 ^ ebits
	local m = bits % 2 ^ mbits
	if e == 0 then
		return sign * m / 2 ^ mbits * 2 ^ (1 - bias)
	elseif e == 2 ^ ebits - 1 then
		if m ~= 0 then
			return 0 / 0
		end
		return sign * math.huge
	end
	return sign * (1 + m / 2 ^ mbits) * 2 ^ (e - bias)
end

local value_add = {
	[1] = function(t, r) return t:add_le(pf.v_int32, r) end,
	[2] = function(t, r) return t:add_le(pf.v_int64, r) end,
	[3] = function(t, r) return t:add_le(pf.v_uint32, r) end,
	[4] = function(t, r) return t:add_le(pf.v_uint64, r) end,
	[5] = function(t, r) return t:add_le(pf.v_float32, r) end,
	[6] = function(t, r) return t:add_le(pf.v_float64, r) end,
	[7] = function(t, r)
		return t:add(pf.v_float16, r, half_value(r:le_uint(), 5, 10))
	end,
	[8] = function(t, r)
		return t:add(pf.v_bfloat16, r, half_value(r:le_uint(), 8, 7))
	end,
	[9] = function(t, r) return t:add_le(pf.v_int8, r) end,
	[10] = function(t, r) return t:add_le(pf.v_uint8, r) end,
	[11] = function(t, r) return t:add_le(pf.v_int16, r) end,
	[12] = function(t, r) return t:add_le(pf.v_uint16, r) end,
}

local function name(tbl, v)
	return tbl[v] or ("unknown(" .. v .. ")")
end

local function rank_str(v)
	if v == RANK_NONE then
		return "none"
	end
	return tostring(v)
end

-- Header fields in host order, as acis_hdr_decode() fills them.
local function read_hdr(tvb)
	return {
		version = tvb(0, 1):uint(), type = tvb(1, 1):uint(),
		opcode = tvb(2, 1):uint(), flags = tvb(3, 1):uint(),
		dtype = tvb(4, 1):uint(), op = tvb(5, 1):uint(),
		hdr_len = tvb(6, 2):uint(), job = tvb(8, 4):uint(),
		comm = tvb(12, 4):uint(), rank = tvb(16, 4):uint(),
		root = tvb(20, 4):uint(), seq = tvb(24, 4):uint(),
		chunk = tvb(28, 4):uint(),
		msg_size = tvb(32, 4):uint() * 2 ^ 32 + tvb(36, 4):uint(),
		payload_len = tvb(40, 2):uint(), chunk_size = tvb(42, 2):uint(),
		contributors = tvb(44, 2):uint(), status = tvb(46, 2):uint(),
	}
end

local function n_chunks(h)
	if h.msg_size == 0 or h.chunk_size == 0 then
		return 1
	end
	return math.ceil(h.msg_size / h.chunk_size)
end

local function is_reduction(coll)
	return coll == 1 or coll == 2 or coll == C_REDUCE_SCATTER
end

-- check_data() of proto.c: the expert and counter of the first fault.
local function check_data(h)
	local coll = h.opcode % 16
	local algo = math.floor(h.opcode / 16)
	if coll == C_FUSED then
		-- check_fused(): bytes whatever the datatype; a built-in op
		-- on it (none for allgather_op); the chunk in the message
		if patterns[algo] == nil then
			return ex.bad_opcode, "acis_bad_opcode"
		end
		if dtype_size[h.dtype] == nil then
			return ex.bad_dtype, "acis_bad_dtype"
		end
		local ok
		if algo == FUSED_ALLGATHER_OP then
			ok = h.op == 0
		else
			ok = h.op >= 1 and h.op <= 7 and
				not (h.op >= 5 and float_dtype[h.dtype])
		end
		if not ok then
			return ex.bad_op, "acis_bad_op"
		end
		if h.msg_size > 2 ^ 40 or h.chunk_size == 0 or
		    h.chunk_size % 8 ~= 0 or h.chunk >= n_chunks(h) then
			return ex.bad_chunk, "acis_bad_chunk"
		end
		local left = h.msg_size - h.chunk * h.chunk_size
		if h.payload_len ~= (left < h.chunk_size and left or
		    h.chunk_size) then
			return ex.bad_chunk, "acis_bad_chunk"
		end
		return nil
	end
	if colls[coll] == nil or algos[algo] == nil then
		return ex.bad_opcode, "acis_bad_opcode"
	end
	if coll == C_BARRIER then
		if h.msg_size ~= 0 or h.payload_len ~= 0 or h.chunk ~= 0 then
			return ex.bad_chunk, "acis_bad_chunk"
		end
		return nil
	end
	local ds = dtype_size[h.dtype]
	if ds == nil then
		return ex.bad_dtype, "acis_bad_dtype"
	end
	local op_ok
	if is_reduction(coll) then
		op_ok = h.op >= 1 and h.op <= 7 and
			not (h.op >= 5 and float_dtype[h.dtype])
	else
		op_ok = h.op == 0
	end
	if not op_ok then
		return ex.bad_op, "acis_bad_op"
	end
	if h.msg_size > 2 ^ 40 or h.msg_size % ds ~= 0 or
	    h.chunk_size == 0 or h.chunk_size % 8 ~= 0 or
	    h.payload_len % ds ~= 0 then
		return ex.bad_chunk, "acis_bad_chunk"
	end
	if has(h.flags, F_PACKED) then
		return nil
	end
	if h.type == T_RESULT and has(h.flags, F_PARTIAL) and
	    h.payload_len == 0 then
		return nil -- a fabric's result for a subtree its receiver is not in
	end
	local cpr = n_chunks(h)
	local c = h.chunk
	if coll == C_SCATTER or coll == C_REDUCE_SCATTER or
	    coll == C_ALLTOALL then
		c = c % cpr
	elseif c >= cpr then
		return ex.bad_chunk, "acis_bad_chunk"
	end
	local left = h.msg_size - c * h.chunk_size
	local want = left < h.chunk_size and left or h.chunk_size
	if h.payload_len ~= want then
		return ex.bad_chunk, "acis_bad_chunk"
	end
	return nil
end

-- acis_msg_parse() after the header is known to be there.
local function validate(h, len)
	if h.version ~= VERSION then
		return ex.bad_version, "acis_bad_version"
	end
	if h.hdr_len < HDR_LEN or h.hdr_len > len then
		return ex.bad_hdr_len, "acis_truncated"
	end
	if types[h.type] == nil then
		return ex.bad_type, "acis_bad_type"
	end
	if h.hdr_len + h.payload_len ~= len then
		return ex.bad_length, "acis_bad_length"
	end
	if h.type == T_DATA or h.type == T_RESULT then
		return check_data(h)
	end
	if h.type == T_CTRL or h.type == T_CTRL_ACK then
		if ctrl_ops[h.opcode] == nil then
			return ex.bad_opcode, "acis_bad_opcode"
		end
	end
	return nil
end

local function gen(item)
	item:set_generated()
	return item
end

local function add_u32_list(tree, field, tvb, off, len, label)
	local n = math.floor(len / 4)
	local sub = tree:add(tvb(off, len), string.format("%s (%d)", label, n))
	local vals = {}
	for i = 0, n - 1 do
		sub:add_le(field, tvb(off + 4 * i, 4))
		vals[#vals + 1] = tostring(tvb(off + 4 * i, 4):le_uint())
	end
	return table.concat(vals, ",")
end

local function add_values(tree, tvb, off, len, dtype, label)
	local ds = dtype_size[dtype]
	local max = acis.prefs.max_values
	if ds == nil or len < ds or max == 0 then
		return
	end
	local n = math.floor(len / ds)
	local shown = math.min(n, max)
	local sub = tree:add(tvb(off, len), string.format("%s: %d × %s%s",
		label, n, dtypes[dtype],
		shown < n and string.format(" (first %d shown)", shown) or ""))
	for i = 0, shown - 1 do
		value_add[dtype](sub, tvb(off + i * ds, ds))
	end
end

-- The payload, by what the type and header say it holds.
local function dissect_payload(tvb, tree, h, off, len)
	local coll = h.opcode % 16
	local ptree = tree:add(pf.payload, tvb(off, len))
	if h.type == T_ACK then
		gen(ptree:add(pf.ack_count, h.chunk))
		return " keys=" .. add_u32_list(ptree, pf.ack_key, tvb, off, len,
			"Confirmed slot keys")
	elseif h.type == T_NACK and h.status == S_TIMEOUT then
		return " missing=" .. add_u32_list(ptree, pf.missing_rank, tvb, off,
			len, "Ranks that never contributed")
	elseif h.type == T_RESULT and has(h.flags, F_PACKED) and
	    h.msg_size > 0 then
		local bs = h.msg_size
		local r = 0
		local o = 0
		while o + bs <= len and r < 4096 do
			local b = ptree:add(tvb(off + o, bs),
				string.format("Block of rank %d", r))
			gen(b:add(pf.block_rank, r))
			add_values(b, tvb, off + o, bs, h.dtype, "Values")
			o = o + bs
			r = r + 1
		end
	elseif h.type == T_DATA and coll == C_FUSED then
		-- a rank's message: chunk 0 opens with the prefix (little-
		-- endian words: block, inbound, op output bytes; the op)
		if h.chunk == 0 and len >= 16 then
			local pt = ptree:add(tvb(off, 16), "Fused prefix")
			pt:add_le(pf.fused_block, tvb(off, 4))
			pt:add_le(pf.fused_inbound, tvb(off + 4, 4))
			pt:add_le(pf.fused_out, tvb(off + 8, 4))
			pt:add(pf.fused_map, tvb(off + 12, 1))
			return string.format(" block=%d inbound=%d out=%d op=%d",
				tvb(off, 4):le_uint(), tvb(off + 4, 4):le_uint(),
				tvb(off + 8, 4):le_uint(), tvb(off + 12, 1):uint())
		end
	elseif (h.type == T_DATA or h.type == T_RESULT) and
	    coll ~= C_BARRIER then
		add_values(ptree, tvb, off, len, h.dtype, "Values")
	end
	return ""
end

-- The header's generic fields read as this control operation's.
local function dissect_ctrl(tvb, tree, h)
	local reply = h.type == T_CTRL_ACK
	local op = h.opcode
	if op == CTRL_JOIN and not reply then
		tree:add(pf.world_size, tvb(20, 4))
		return string.format(" job=%d rank=%d size=%d", h.job, h.rank,
			h.root)
	elseif op == CTRL_JOIN then
		return string.format(" job=%d rank=%d comm=%d", h.job, h.rank,
			h.comm)
	elseif op == CTRL_LEAVE then
		return string.format(" job=%d rank=%d", h.job, h.rank)
	elseif op == CTRL_SPLIT and not reply then
		local ci = tree:add(pf.split_color, tvb(28, 4))
		if h.chunk == RANK_NONE then
			ci:append_text(" (undefined)")
		end
		-- libacis sends key + 2^31, so negative keys sort first
		local key = Int64(tvb(36, 4):uint(), tvb(32, 4):uint()) -
			Int64(0x80000000)
		tree:add(pf.split_key, tvb(32, 8), key):append_text(
			" (msg_size - 2^31)")
		return string.format(" comm=%d seq=%d color=%s key=%s", h.comm,
			h.seq, rank_str(h.chunk), tostring(key))
	elseif op == CTRL_SPLIT then
		local ni = tree:add(pf.split_comm, tvb(36, 4))
		if tvb(36, 4):uint() == RANK_NONE then
			ni:append_text(" (none: undefined color)")
		end
		tree:add(pf.split_rank, tvb(28, 4))
		tree:add(pf.split_size, tvb(20, 4))
		return string.format(" comm=%d seq=%d new_comm=%s new_rank=%s " ..
			"new_size=%s", h.comm, h.seq, rank_str(tvb(36, 4):uint()),
			rank_str(h.chunk), rank_str(h.root))
	elseif op == CTRL_COMM_FREE then
		return string.format(" comm=%d seq=%d", h.comm, h.seq)
	elseif op == CTRL_COMM_QUERY and not reply then
		return string.format(" job=%d comm=%d rank=%d", h.job, h.comm,
			h.rank)
	elseif op == CTRL_COMM_QUERY then
		tree:add(pf.query_rank, tvb(16, 4))
		tree:add(pf.query_size, tvb(20, 4))
		return string.format(" job=%d comm=%d rank=%d size=%d", h.job,
			h.comm, h.rank, h.root)
	elseif op == CTRL_DEADLINE then
		-- doc/sync.md: chunk 0 sets the period, 1 reports an epoch,
		-- 2 (the switch's, MULTICAST) signals one
		local s = string.format(" comm=%d rank=%d", h.comm, h.rank)
		if h.chunk == 2 then
			s = s .. string.format(" signal epoch=%d period=%sus",
				h.seq, tostring(h.msg_size))
		elseif h.chunk == 1 then
			s = s .. string.format(" epoch=%d done", h.seq)
			if reply and h.root == 1 then
				s = s .. " (late)"
			end
		else
			s = s .. string.format(" period=%sus", tostring(h.msg_size))
		end
		return s
	elseif op == CTRL_SSP and not reply then
		return string.format(" comm=%d rank=%d done=%d staleness=%d " ..
			"quorum=%s", h.comm, h.rank, h.seq, h.root,
			h.chunk == 0 and "all" or tostring(h.chunk))
	elseif op == CTRL_SSP then
		return string.format(" comm=%d rank=%d continue=%d", h.comm,
			h.rank, h.seq)
	elseif op == CTRL_INSTALL then
		-- switch to switch (doc/fabric.md): rank = the root's IPv4
		local ip = string.format("%d.%d.%d.%d",
			math.floor(h.rank / 16777216) % 256,
			math.floor(h.rank / 65536) % 256,
			math.floor(h.rank / 256) % 256, h.rank % 256)
		if h.msg_size == 0 and not reply then
			return string.format(" remove the tree of comm=%d root=%s",
				h.comm, ip)
		end
		return string.format(" tree of comm=%d root=%s size=%d " ..
			"entries %d-%d of %s", h.comm, ip, h.root, h.chunk,
			h.chunk + math.floor(h.payload_len / 24) - 1,
			tostring(h.msg_size))
	end
	return ""
end

local function flags_str(f)
	local s = {}
	if has(f, F_MULTICAST) then s[#s + 1] = "MULTICAST" end
	if has(f, F_LAST) then s[#s + 1] = "LAST" end
	if has(f, F_RETRANS) then s[#s + 1] = "RETRANS" end
	if has(f, F_PACKED) then s[#s + 1] = "PACKED" end
	if has(f, F_PARTIAL) then s[#s + 1] = "PARTIAL" end
	if #s == 0 then
		return ""
	end
	return " [" .. table.concat(s, ",") .. "]"
end

local function dissect_header(tvb, tree, h)
	local t = h.type
	tree:add(pf.version, tvb(0, 1))
	tree:add(pf.type, tvb(1, 1))
	local oi = tree:add(pf.opcode, tvb(2, 1))
	if t == T_DATA or t == T_RESULT or t == T_ACK or t == T_NACK then
		oi:add(pf.coll, tvb(2, 1))
		if h.opcode % 16 == C_FUSED then
			oi:add(pf.pattern, tvb(2, 1))
		else
			oi:add(pf.algo, tvb(2, 1))
		end
	elseif t == T_CTRL or t == T_CTRL_ACK then
		oi:add(pf.ctrl_op, tvb(2, 1))
	elseif t == T_LOOKASIDE then
		oi:add(pf.handler, tvb(2, 1))
	end
	local fi = tree:add(pf.flags, tvb(3, 1))
	fi:add(pf.f_multicast, tvb(3, 1))
	fi:add(pf.f_last, tvb(3, 1))
	fi:add(pf.f_retrans, tvb(3, 1))
	fi:add(pf.f_packed, tvb(3, 1))
	fi:add(pf.f_partial, tvb(3, 1))
	fi:append_text(flags_str(h.flags))
	tree:add(pf.dtype, tvb(4, 1))
	tree:add(pf.op, tvb(5, 1))
	tree:add(pf.hdr_len, tvb(6, 2))
	tree:add(pf.job, tvb(8, 4))
	local ci = tree:add(pf.comm, tvb(12, 4))
	if h.comm == 0 and (h.type == T_DATA or h.type == T_ACK or
			    h.type == T_NACK) then
		-- the world alias (wire-format.md)
		ci:append_text(" (the job's world)")
	else
		ci:append_text(string.format(" (generation %d, index %d)",
			math.floor(h.comm / 65536), h.comm % 65536))
	end
	gen(ci:add(pf.comm_gen, math.floor(h.comm / 65536)))
	gen(ci:add(pf.comm_index, h.comm % 65536))
	local ri = tree:add(pf.rank, tvb(16, 4))
	if h.rank == RANK_NONE then
		ri:append_text(has(h.flags, F_PACKED) and " (every rank: packed)"
			or " (none)")
	end
	local rti = tree:add(pf.root, tvb(20, 4))
	if h.root == RANK_NONE then
		rti:append_text(" (none)")
	end
	tree:add(pf.seq, tvb(24, 4))
	tree:add(pf.chunk, tvb(28, 4))
	tree:add(pf.msg_size, tvb(32, 8))
	tree:add(pf.payload_len, tvb(40, 2))
	tree:add(pf.chunk_size, tvb(42, 2))
	tree:add(pf.contributors, tvb(44, 2))
	tree:add(pf.status, tvb(46, 2))
	-- labelled in its 12 hex digits (a uint64 field would show 16)
	local ar = tvb(48, 6)
	if ar:uint64() == UInt64(0) then
		tree:add(pf.auth, ar, ar:uint64(), "Auth: 0 (none)")
	else
		tree:add(pf.auth, ar, ar:uint64(), string.format(
			"Auth: 0x%04x%08x (the rank's cookie)", tvb(48, 2):uint(),
			tvb(50, 4):uint()))
	end
end

-- Where a DATA or RESULT chunk sits, as the switch reads it.
local function dissect_position(tree, h)
	local coll = h.opcode % 16
	if coll == C_BARRIER or h.chunk_size == 0 or has(h.flags, F_PACKED) then
		return ""
	end
	local cpr = n_chunks(h)
	gen(tree:add(pf.cpr, UInt64(cpr % 2 ^ 32, math.floor(cpr / 2 ^ 32))))
	local c = h.chunk
	local s = ""
	if coll == C_SCATTER or coll == C_REDUCE_SCATTER or
	    coll == C_ALLTOALL then
		-- DATA: chunk = block * cpr + chunk; a RESULT names its block
		-- in rank (scatter's: the receiver; alltoall's: the sender,
		-- the block's place in the receive buffer) and the chunk in
		-- the block
		local b = math.floor(h.chunk / cpr)
		c = h.chunk % cpr
		if h.type == T_RESULT then
			b, c = h.rank, h.chunk
		end
		local bi = gen(tree:add(pf.block, b))
		if coll == C_ALLTOALL then
			bi:append_text(h.type == T_RESULT and " (from rank " .. b ..
				")" or " (for rank " .. b .. ")")
		end
		gen(tree:add(pf.block_chunk, c))
		s = string.format(" block=%d", b)
	end
	local off = c * h.chunk_size
	gen(tree:add(pf.offset, UInt64(off % 2 ^ 32, math.floor(off / 2 ^ 32))))
	local ds = dtype_size[h.dtype]
	if ds then
		gen(tree:add(pf.elements, math.floor(h.payload_len / ds)))
	end
	return s .. string.format(" chunk=%d/%d", c, cpr)
end

local function info_for(h)
	local t, coll = h.type, h.opcode % 16
	local s = types[h.type]
	if t == T_DATA or t == T_RESULT then
		s = s .. " " .. name(colls, coll)
		if coll == C_FUSED then
			s = s .. "(" .. name(patterns, math.floor(h.opcode / 16)) ..
				")"
		elseif math.floor(h.opcode / 16) ~= 0 then
			s = s .. "(" .. name(algos, math.floor(h.opcode / 16)) .. ")"
		end
		if coll ~= C_BARRIER then
			s = s .. " " .. name(dtypes, h.dtype)
			if h.op ~= 0 then
				s = s .. " " .. name(ops, h.op)
			end
		end
		return s .. string.format(" comm=%d seq=%d rank=%s", h.comm,
			h.seq, rank_str(h.rank))
	elseif t == T_ACK or t == T_NACK then
		s = s .. " " .. name(colls, coll)
		if t == T_NACK and h.status ~= 0 then
			s = s .. " " .. name(statuses, h.status)
		end
		return s .. string.format(" comm=%d seq=%d rank=%s", h.comm,
			h.seq, rank_str(h.rank))
	elseif t == T_CTRL or t == T_CTRL_ACK then
		s = s .. " " .. name(ctrl_ops, h.opcode)
		if t == T_CTRL_ACK then
			s = s .. " " .. name(statuses, h.status)
		end
		return s
	end
	return s .. string.format(" handler=%d job=%d seq=%d", h.opcode,
		h.job, h.seq)
end

function acis.dissector(tvb, pinfo, tree)
	local len = tvb:len()
	if len == 0 then
		return 0
	end
	pinfo.cols.protocol = "ACiS"
	local root = tree:add(acis, tvb(), "ACiS")
	if len < HDR_LEN then
		root:add_tvb_expert_info(ex.truncated, tvb(),
			string.format("acis_truncated: ACiS message of %d bytes, " ..
				"under the %d-byte header", len, HDR_LEN))
		gen(root:add(pf.drop_reason, "acis_truncated"))
		pinfo.cols.info = string.format("ACiS %d bytes [acis_truncated]",
			len)
		return len
	end
	local h = read_hdr(tvb)
	local hdr_tree = root:add(tvb(0, HDR_LEN), "Header")
	dissect_header(tvb, hdr_tree, h)

	local fault, counter = validate(h, len)
	local info = h.version == VERSION and types[h.type] and info_for(h) or
		string.format("ACiS version %d type %d", h.version, h.type)
	local pos_tree = root
	if fault == nil or h.version == VERSION then
		if h.type == T_DATA or h.type == T_RESULT then
			info = info .. dissect_position(pos_tree, h)
		elseif h.type == T_ACK then
			if h.payload_len == 0 then
				info = info .. string.format(" chunk=%d", h.chunk)
			end
		elseif h.type == T_NACK then
			if h.status == 0 then
				root:add(pf.nack_key, tvb(28, 4))
				info = info .. string.format(" resend key=%d", h.chunk)
			else
				info = info .. string.format(" chunk=%d", h.chunk)
			end
		elseif h.type == T_CTRL or h.type == T_CTRL_ACK then
			info = info .. dissect_ctrl(tvb, root, h)
		end
	end
	if h.status ~= 0 and (h.type == T_NACK or h.type == T_CTRL_ACK) then
		root:add_tvb_expert_info(ex.status, tvb(46, 2),
			"Status " .. name(statuses, h.status))
	end
	if has(h.flags, F_RETRANS) then
		root:add_tvb_expert_info(ex.retrans, tvb(3, 1))
	end
	info = info .. flags_str(h.flags)

	-- the payload where the header says it is, as far as it goes
	local hl = (h.hdr_len >= HDR_LEN and h.hdr_len <= len) and h.hdr_len or
		HDR_LEN
	if hl > HDR_LEN then
		root:add(pf.hdr_ext, tvb(HDR_LEN, hl - HDR_LEN))
	end
	local plen = math.min(h.payload_len, len - hl)
	if fault == nil and plen > 0 then
		info = info .. dissect_payload(tvb, root, h, hl, plen)
	elseif plen > 0 then
		root:add(pf.payload, tvb(hl, plen))
	end
	if h.payload_len > 0 then
		info = info .. string.format(" len=%d", h.payload_len)
	end

	if fault then
		local detail = string.format("%s: %s (hdr_len %d, payload_len %d, " ..
			"UDP payload %d bytes)", counter, ex_text[fault], h.hdr_len,
			h.payload_len, len)
		root:add_tvb_expert_info(fault, tvb(0, HDR_LEN), detail)
		gen(root:add(pf.drop_reason, counter))
		info = info .. " [" .. counter .. "]"
	end
	root:append_text(", " .. info)
	pinfo.cols.info = info
	return len
end

-- A well-formed version 1 header, as acis_msg_parse() takes it: strict
-- enough that other UDP traffic is rarely mistaken for ACiS. auth may be
-- anything: 0 or a rank's cookie.
local function heuristic(tvb, pinfo, tree)
	local len = tvb:len()
	if len < HDR_LEN then
		return false
	end
	local h = read_hdr(tvb)
	if validate(h, len) ~= nil then
		return false
	end
	acis.dissector(tvb, pinfo, tree)
	return true
end

local udp_table = DissectorTable.get("udp.port")
local registered_port = 0

local function register_port()
	if registered_port ~= 0 then
		udp_table:remove(registered_port, acis)
	end
	registered_port = acis.prefs.udp_port
	if registered_port ~= 0 then
		udp_table:add(registered_port, acis)
	end
end

function acis.prefs_changed()
	if acis.prefs.udp_port ~= registered_port then
		register_port()
	end
end

register_port()
-- "Decode As..." lists ACiS for every UDP port (Wireshark 2.0 and later).
pcall(function() udp_table:add_for_decode_as(acis) end)
acis:register_heuristic("udp", heuristic)
