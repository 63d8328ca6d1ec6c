# SPDX-License-Identifier: BSD-3-Clause
"""acis.layer: scapy layers for the ACiS wire protocol, version 1.

doc/wire-format.md is the layout and lib/proto (acis_proto.h) the
authority; tools/wireshark/acis.lua reads the same fields in Wireshark.

    import struct
    from scapy.all import IP, UDP, Ether, Raw, rdpcap
    from acis.layer import ACiS

    f = (Ether(src="02:a0:00:00:00:10", dst="02:ac:15:00:00:01")
         / IP(src="10.77.0.10", dst="10.77.0.1") / UDP(sport=40000)
         / ACiS(type="DATA", opcode="allreduce", dtype="float32", op="sum",
                comm=65536, rank=0, chunk_size=1416, msg_size=8,
                contributors=1, flags="LAST")
         / Raw(struct.pack("<2f", 1.5, 2.0)))
    for p in rdpcap("capture.pcap"):
        if ACiS in p:
            print(p[ACiS].seq, p[ACiS].values())

ACiS is bound to UDP port 47000 in both directions (bind_port() adds
another port). `payload_len` left unset is the payload's length. `auth`
left 0 is a rank without a cookie, which a switch takes unless its
`[collective] auth` is required. The payloads the format gives a structure
are layers of their own, chosen from the header: the keys of a coalesced
ACK or a host's receipts (ACiSKeys), the missing ranks of a NACK TIMEOUT
(ACiSMissingRanks) and the rank-ordered blocks of a PACKED result
(ACiSPacked). Reduction data and look-aside payloads (the handler's own
format) are Raw; ACiS.values() reads elements by the header's dtype. A UDP
payload shorter than the header dissects as ACiSTruncated, never raising.
"""
import struct

from scapy.config import conf
from scapy.fields import (ByteEnumField, ByteField, ConditionalField,
                          FieldListField, FlagsField, IntField, LEIntField,
                          LongField, ShortEnumField, ShortField, StrField,
                          StrLenField, XBitField)
from scapy.layers.inet import UDP
from scapy.packet import Packet, Raw, bind_bottom_up, bind_top_down

__all__ = [
    "ACIS_PORT", "ACiS", "ACiSKeys", "ACiSMissingRanks", "ACiSPacked",
    "ACiSTruncated", "CTX_WORLD", "HDR_LEN", "RANK_NONE", "bind_port", "data_chunks",
    "join", "leave", "lookaside", "opcode", "opcode_name", "receipts",
]

VERSION = 1
HDR_LEN = 54
ACIS_PORT = 47000
RANK_NONE = 0xFFFFFFFF
CTX_NONE = 0xFFFFFFFF
#: comm in DATA, ACK and NACK: the world communicator of the message's job
#: (whatever id the switch gave it), as recorded traffic names it
CTX_WORLD = 0

# Names as in lib/proto/acis_proto.h and proto.c.
T_DATA, T_RESULT, T_ACK, T_NACK, T_CTRL, T_CTRL_ACK, T_LOOKASIDE = range(1, 8)
TYPES = {T_DATA: "DATA", T_RESULT: "RESULT", T_ACK: "ACK", T_NACK: "NACK",
         T_CTRL: "CTRL", T_CTRL_ACK: "CTRL_ACK", T_LOOKASIDE: "LOOKASIDE"}

COLLS = {1: "allreduce", 2: "reduce", 3: "bcast", 4: "scatter", 5: "gather",
         6: "allgather", 7: "reduce_scatter", 8: "barrier", 9: "alltoall",
         10: "fused"}
C_ALLREDUCE, C_REDUCE, C_BCAST, C_SCATTER = 1, 2, 3, 4
C_GATHER, C_ALLGATHER, C_REDUCE_SCATTER, C_BARRIER = 5, 6, 7, 8
C_ALLTOALL = 9
C_FUSED = 10
# A fused call's pattern: the opcode's high 4 bits (doc/fused.md).
FUSED_PATTERNS = {1: "allreduce_op", 2: "allgather_op",
                  3: "allreduce_op_allreduce", 4: "scatter_op_reduce",
                  5: "allreduce_op_alltoall"}
ALGOS = {0: "default", 1: "binomial", 2: "recursive_doubling",
         3: "recursive_halving", 4: "ring"}

CTRL_OPS = {1: "JOIN", 2: "LEAVE", 3: "SPLIT", 4: "COMM_FREE",
            5: "COMM_QUERY", 6: "DEADLINE", 7: "SSP", 8: "INSTALL",
            9: "OP_CREATE", 10: "OP_FREE"}
(CTRL_JOIN, CTRL_LEAVE, CTRL_SPLIT, CTRL_COMM_FREE, CTRL_COMM_QUERY,
 CTRL_DEADLINE, CTRL_SSP, CTRL_INSTALL) = range(1, 9)

F_MULTICAST, F_LAST, F_RETRANS, F_PACKED = 0x01, 0x02, 0x04, 0x08
F_PARTIAL = 0x10  # switch to switch in a fabric's tree (doc/fabric.md)
FLAG_NAMES = ["MULTICAST", "LAST", "RETRANS", "PACKED", "PARTIAL"]

# code: (name, bytes, struct format of one little-endian element); the
# 16-bit floats are decoded by values() itself
DTYPES = {1: ("int32", 4, "<i"), 2: ("int64", 8, "<q"), 3: ("uint32", 4, "<I"),
          4: ("uint64", 8, "<Q"), 5: ("float32", 4, "<f"),
          6: ("float64", 8, "<d"), 7: ("float16", 2, "<e"),
          8: ("bfloat16", 2, None), 9: ("int8", 1, "<b"), 10: ("uint8", 1, "<B"),
          11: ("int16", 2, "<h"), 12: ("uint16", 2, "<H")}
DTYPE_NAMES = {0: "none", **{k: v[0] for k, v in DTYPES.items()}}

OPS = {0: "none", 1: "sum", 2: "prod", 3: "min", 4: "max", 5: "band",
       6: "bor", 7: "bxor", **{k: "user" for k in range(128, 256)}}

STATUSES = {0: "OK", 1: "BUSY", 2: "NO_JOB", 3: "NO_COMM", 4: "NOT_MEMBER",
            5: "BAD_ARGS", 6: "MISMATCH", 7: "RANK_TAKEN", 8: "SIZE_MISMATCH",
            9: "FULL", 10: "TIMEOUT", 11: "PENDING", 12: "GONE",
            13: "LIMIT", 14: "AUTH", 15: "OP_FAULT", 16: "NO_OP"}
S_OK, S_TIMEOUT = 0, 10

_COLL_CODES = {v: k for k, v in COLLS.items()}
_ALGO_CODES = {**{v: k for k, v in ALGOS.items()},
               "binomial tree": 1, "recursive doubling": 2,
               "recursive halving": 3}
_CTRL_CODES = {v: k for k, v in CTRL_OPS.items()}


def opcode(name, algo=0):
    """The opcode byte of a collective ("allreduce", "reduce_scatter(ring)",
    with algo a name or number) or a control operation ("JOIN")."""
    s = name.strip()
    if s.upper() in _CTRL_CODES:
        return _CTRL_CODES[s.upper()]
    if s.endswith(")") and "(" in s:
        s, algo = s[:-1].split("(", 1)
    s = s.strip().lower()
    if s == "fused":
        # fused(PATTERN): the pattern where the algorithm goes
        codes = {v: k for k, v in FUSED_PATTERNS.items()}
        if isinstance(algo, str):
            algo = codes.get(algo.strip().lower())
        if algo not in FUSED_PATTERNS:
            raise ValueError("%r: a fused call names its pattern (%s)" %
                             (name, ", ".join(FUSED_PATTERNS.values())))
        return algo << 4 | C_FUSED
    if isinstance(algo, str):
        algo = _ALGO_CODES.get(algo.strip().lower())
    if s not in _COLL_CODES or algo not in ALGOS:
        raise ValueError("%r: not a collective (%s), algorithm (%s) or control "
                         "operation (%s)" % (name, ", ".join(COLLS.values()),
                                             ", ".join(ALGOS.values()),
                                             ", ".join(CTRL_OPS.values())))
    return algo << 4 | _COLL_CODES[s]


def opcode_name(type_, code):
    """What an opcode means in a message of type_: a collective (and its
    algorithm), a control operation or a look-aside handler."""
    if type_ in (T_DATA, T_RESULT, T_ACK, T_NACK):
        coll = COLLS.get(code & 0x0F, "unknown(%d)" % (code & 0x0F))
        if code & 0x0F == C_FUSED:
            return "fused(%s)" % FUSED_PATTERNS.get(code >> 4, code >> 4)
        if code >> 4:
            return "%s(%s)" % (coll, ALGOS.get(code >> 4, code >> 4))
        return coll
    if type_ in (T_CTRL, T_CTRL_ACK):
        return CTRL_OPS.get(code, "unknown(%d)" % code)
    if type_ == T_LOOKASIDE:
        return "handler %d" % code
    return str(code)


class _OpcodeField(ByteField):
    """The opcode byte, read by the message type: names are accepted for
    both kinds (collective names and control operation names differ)."""

    def any2i(self, pkt, x):
        if isinstance(x, str):
            return opcode(x)
        return super().any2i(pkt, x)

    def i2repr(self, pkt, x):
        if x is None:
            return repr(x)
        return "%s (%#04x)" % (opcode_name(pkt.type if pkt else None, x), x)


class _RankField(IntField):
    """A rank; 0xffffffff is none (no root, every rank of a packed result)."""

    def any2i(self, pkt, x):
        if x == "none" or x == -1:
            return RANK_NONE
        return super().any2i(pkt, x)

    def i2repr(self, pkt, x):
        return "none" if x == RANK_NONE else super().i2repr(pkt, x)


class _CommField(IntField):
    """A context id: generation << 16 | index; 0 (CTX_WORLD) in DATA, ACK
    and NACK: the world communicator of the message's job."""

    def i2repr(self, pkt, x):
        if x is None:
            return repr(x)
        if x == CTX_WORLD and pkt is not None and \
                pkt.type in (T_DATA, T_ACK, T_NACK):
            return "0 (the job's world)"
        return "%d (generation %d, index %d)" % (x, x >> 16, x & 0xFFFF)


def _rank_str(v):
    return "none" if v == RANK_NONE else str(v)


class ACiS(Packet):
    """The 54-byte ACiS header, every field big endian (doc/wire-format.md).
    The meaning of `opcode` depends on `type`; see opcode_name()."""
    name = "ACiS"
    fields_desc = [
        ByteField("version", VERSION),
        ByteEnumField("type", T_DATA, TYPES),
        _OpcodeField("opcode", 0),
        FlagsField("flags", 0, 8, FLAG_NAMES),
        ByteEnumField("dtype", 0, DTYPE_NAMES),
        ByteEnumField("op", 0, OPS),
        ShortField("hdr_len", HDR_LEN),
        IntField("job", 0),
        _CommField("comm", 0),
        _RankField("rank", 0),
        _RankField("root", RANK_NONE),
        IntField("seq", 0),
        IntField("chunk", 0),
        LongField("msg_size", 0),
        ShortField("payload_len", None),
        ShortField("chunk_size", 0),
        ShortField("contributors", 0),
        ShortEnumField("status", S_OK, STATUSES),
        # 48 bits: the rank's cookie, to the switch and from it; 0: none
        XBitField("auth", 0, 48),
        # what a later version appends: receivers skip hdr_len bytes
        ConditionalField(
            StrLenField("ext", b"", length_from=lambda p: p.hdr_len - HDR_LEN),
            lambda p: (p.hdr_len or 0) > HDR_LEN),
    ]

    @classmethod
    def dispatch_hook(cls, _pkt=None, *args, **kargs):
        if _pkt and len(_pkt) < HDR_LEN:
            return ACiSTruncated
        return cls

    def post_build(self, p, pay):
        if self.payload_len is None:
            p = p[:40] + struct.pack("!H", len(pay) & 0xFFFF) + p[42:]
        return p + pay

    def extract_padding(self, s):
        # bytes past payload_len are not the message's (the switch counts
        # such a frame as acis_bad_length)
        return s[:self.payload_len], s[self.payload_len:]

    def guess_payload_class(self, payload):
        t, n = self.type, len(payload)
        if self.version != VERSION:
            return conf.raw_layer
        if t == T_ACK and n % 4 == 0:
            return ACiSKeys
        if t == T_NACK and self.status == S_TIMEOUT and n % 4 == 0:
            return ACiSMissingRanks
        if t == T_RESULT and int(self.flags) & F_PACKED and self.msg_size:
            return ACiSPacked
        return conf.raw_layer

    @property
    def coll(self):
        """The collective of a DATA, RESULT, ACK or NACK (low 4 bits)."""
        return self.opcode & 0x0F

    @property
    def algo(self):
        """The algorithm of a DATA, RESULT, ACK or NACK (high 4 bits)."""
        return self.opcode >> 4

    def values(self):
        """The payload's elements by `dtype`, little endian ([] if the
        dtype is unknown); a PACKED result's blocks one after another."""
        if self.dtype not in DTYPES:
            return []
        _, size, fmt = DTYPES[self.dtype]
        b = bytes(self.payload)[:self.payload_len]
        b = b[:len(b) // size * size]
        if fmt is None:  # bfloat16: the top half of a float32
            return [struct.unpack("<f", b"\0\0" + b[i:i + 2])[0]
                    for i in range(0, len(b), 2)]
        return [v for (v,) in struct.iter_unpack(fmt, b)]

    def answers(self, other):
        if not isinstance(other, ACiS) or other.version != self.version:
            return 0
        if self.type == T_CTRL_ACK:
            return (other.type == T_CTRL and other.opcode == self.opcode
                    and other.job == self.job and other.seq == self.seq
                    and other.rank == self.rank)
        if self.type in (T_RESULT, T_ACK, T_NACK):
            # DATA naming the world by alias is answered under its id
            return (other.type == T_DATA
                    and other.comm in (self.comm, CTX_WORLD)
                    and other.seq == self.seq
                    and other.opcode & 0x0F == self.opcode & 0x0F)
        if self.type == T_LOOKASIDE:
            return (other.type == T_LOOKASIDE and other.opcode == self.opcode
                    and other.job == self.job and other.seq == self.seq)
        return 0

    def _ctrl_summary(self):
        op, reply = self.opcode, self.type == T_CTRL_ACK
        if op == CTRL_JOIN and not reply:
            return " job=%d rank=%d size=%d" % (self.job, self.rank, self.root)
        if op == CTRL_JOIN:
            return " job=%d rank=%d comm=%d" % (self.job, self.rank, self.comm)
        if op == CTRL_LEAVE:
            return " job=%d rank=%d" % (self.job, self.rank)
        if op == CTRL_SPLIT and not reply:
            # libacis sends key + 2^31, so negative keys sort first
            return " comm=%d seq=%d color=%s key=%d" % (
                self.comm, self.seq, _rank_str(self.chunk),
                self.msg_size - 0x80000000)
        if op == CTRL_SPLIT:
            return " comm=%d seq=%d new_comm=%s new_rank=%s new_size=%s" % (
                self.comm, self.seq, _rank_str(self.msg_size & 0xFFFFFFFF),
                _rank_str(self.chunk), _rank_str(self.root))
        if op == CTRL_COMM_FREE:
            return " comm=%d seq=%d" % (self.comm, self.seq)
        if op == CTRL_COMM_QUERY and not reply:
            return " job=%d comm=%d rank=%d" % (self.job, self.comm, self.rank)
        if op == CTRL_COMM_QUERY:
            return " job=%d comm=%d rank=%d size=%d" % (
                self.job, self.comm, self.rank, self.root)
        if op == CTRL_DEADLINE:
            # doc/sync.md: chunk 0 sets the period, 1 reports an epoch,
            # 2 (the switch's) signals one
            s = " comm=%d rank=%d" % (self.comm, self.rank)
            if self.chunk == 2:
                return s + " signal epoch=%d period=%dus" % (self.seq,
                                                             self.msg_size)
            if self.chunk == 1:
                return s + " epoch=%d done%s" % (
                    self.seq, " (late)" if reply and self.root == 1 else "")
            return s + " period=%dus" % self.msg_size
        if op == CTRL_SSP and not reply:
            return " comm=%d rank=%d done=%d staleness=%d quorum=%s" % (
                self.comm, self.rank, self.seq, self.root,
                "all" if self.chunk == 0 else self.chunk)
        if op == CTRL_SSP:
            return " comm=%d rank=%d continue=%d" % (self.comm, self.rank,
                                                     self.seq)
        if op == CTRL_INSTALL:
            # switch to switch (doc/fabric.md): rank = the root's IPv4
            ip = ".".join(str(self.rank >> s & 255) for s in (24, 16, 8, 0))
            if self.msg_size == 0 and not reply:
                return " remove the tree of comm=%d root=%s" % (self.comm, ip)
            return " tree of comm=%d root=%s size=%d entries %d-%d of %d" % (
                self.comm, ip, self.root, self.chunk,
                self.chunk + self.payload_len // 24 - 1, self.msg_size)
        return ""

    def _position(self):
        """Where a DATA or RESULT chunk sits in its block."""
        coll = self.coll
        if coll == C_BARRIER or not self.chunk_size or \
                int(self.flags) & F_PACKED:
            return ""
        cpr = max(1, -(-self.msg_size // self.chunk_size))
        if coll in (C_SCATTER, C_REDUCE_SCATTER, C_ALLTOALL):
            # DATA: chunk = block * cpr + chunk; a RESULT names its block
            # in rank (scatter's: the receiver; alltoall's: the sender,
            # the block's place in the receive buffer) and the chunk in
            # the block
            if self.type == T_RESULT:
                return " block=%d chunk=%d/%d" % (self.rank, self.chunk, cpr)
            return " block=%d chunk=%d/%d" % (self.chunk // cpr,
                                              self.chunk % cpr, cpr)
        return " chunk=%d/%d" % (self.chunk, cpr)

    def mysummary(self):
        t = self.type
        if self.version != VERSION or t not in TYPES:
            return "ACiS version %d type %d" % (self.version, t), [UDP]
        if t == T_LOOKASIDE:
            s = "ACiS LOOKASIDE handler=%d job=%d seq=%d" % (
                self.opcode, self.job, self.seq)
        else:
            s = "ACiS %s %s" % (TYPES[t], opcode_name(t, self.opcode))
        if t in (T_DATA, T_RESULT) and self.coll != C_BARRIER:
            s += " " + DTYPE_NAMES.get(self.dtype, "unknown(%d)" % self.dtype)
            if self.op:
                s += " " + OPS.get(self.op, "unknown(%d)" % self.op)
        if t == T_NACK and self.status or t == T_CTRL_ACK:
            s += " " + STATUSES.get(self.status, "unknown(%d)" % self.status)
        if t in (T_DATA, T_RESULT, T_ACK, T_NACK):
            s += " comm=%d seq=%d rank=%s" % (self.comm, self.seq,
                                              _rank_str(self.rank))
        if t in (T_DATA, T_RESULT):
            s += self._position()
        elif t == T_ACK and not self.payload_len:
            s += " chunk=%d" % self.chunk
        elif t == T_NACK:
            s += (" chunk=%d" if self.status else " resend key=%d") % self.chunk
        elif t in (T_CTRL, T_CTRL_ACK):
            s += self._ctrl_summary()
        names = [n for i, n in enumerate(FLAG_NAMES) if int(self.flags) >> i & 1]
        if names:
            s += " [%s]" % ",".join(names)
        n = len(self.payload) if self.payload_len is None else self.payload_len
        if n:
            s += " len=%d" % n
        # the UDP layer's summary too: who sent it, from which port
        return s, [UDP]


class ACiSTruncated(Packet):
    """A UDP payload on the ACiS port shorter than the 54-byte header (the
    switch drops it as acis_truncated)."""
    name = "ACiS (truncated)"
    fields_desc = [StrField("data", b"")]

    def mysummary(self):
        return "ACiS %d bytes, under the %d-byte header [acis_truncated]" % (
            len(self.data), HDR_LEN), [UDP]


def _u32_list(values):
    return ",".join(str(v) for v in values)


class ACiSKeys(Packet):
    """An ACK's payload: slot keys as little-endian uint32 (the switch's
    coalesced ACK of several chunks, or a host's receipts); the header's
    `chunk` is their number."""
    name = "ACiS keys"
    fields_desc = [FieldListField("keys", [], LEIntField("key", 0))]

    def mysummary(self):
        return "keys=" + _u32_list(self.keys), [ACiS]


class ACiSMissingRanks(Packet):
    """A NACK TIMEOUT's payload: the ranks that never contributed, as
    little-endian uint32."""
    name = "ACiS missing ranks"
    fields_desc = [FieldListField("ranks", [], LEIntField("rank", 0))]

    def mysummary(self):
        return "missing=" + _u32_list(self.ranks), [ACiS]


class _BlockField(StrField):
    """One rank's block of a packed result: `msg_size` bytes of the header
    under it (the last one may be cut short)."""

    def getfield(self, pkt, s):
        n = getattr(pkt.underlayer, "msg_size", 0) or len(s)
        return s[n:], s[:n]


class ACiSPacked(Packet):
    """A PACKED gather or allgather result: every rank's block, in rank
    order, `msg_size` bytes each."""
    name = "ACiS packed blocks"
    fields_desc = [FieldListField("blocks", [], _BlockField("block", b""))]

    def mysummary(self):
        return "%d blocks of %d bytes" % (
            len(self.blocks), getattr(self.underlayer, "msg_size", 0)), [ACiS]


def bind_port(port):
    """Dissect UDP to or from `port` as ACiS (a switch's `[switch]
    udp_port`); building UDP()/ACiS() keeps 47000 unless told."""
    bind_bottom_up(UDP, ACiS, dport=port)
    bind_bottom_up(UDP, ACiS, sport=port)
    # What goes to an ACiS port is ACiS whatever its source port, ahead of
    # scapy's own bindings (a bare UDP() sends from 53, DNS's port); what
    # comes from one is ACiS unless the other port is one scapy knows.
    to = [g for g in UDP.payload_guess if g[1] is ACiS and "dport" in g[0]]
    UDP.payload_guess = to + [g for g in UDP.payload_guess if g not in to]


# UDP()/ACiS() goes to the ACiS port; both directions dissect as ACiS.
bind_top_down(UDP, ACiS, dport=ACIS_PORT)
bind_port(ACIS_PORT)


# --- messages a host sends ---------------------------------------------

def _hdr(defaults, fields):
    h = dict(defaults)
    h.update(fields)
    return ACiS(**h)


def join(job, rank, size, **fields):
    """CTRL JOIN of `rank` to `job`, a world of `size` ranks."""
    return _hdr(dict(type=T_CTRL, opcode=CTRL_JOIN, job=job, rank=rank,
                     root=size), fields)


def leave(job, rank, **fields):
    """CTRL LEAVE of `rank` from `job`."""
    return _hdr(dict(type=T_CTRL, opcode=CTRL_LEAVE, job=job, rank=rank),
                fields)


def data_chunks(block, chunk_size, first=0, **fields):
    """The DATA messages carrying `block` (bytes) in chunks of `chunk_size`,
    numbered from `first`, the last one flagged LAST; one empty chunk for an
    empty block (a barrier). `fields` fill the header (opcode, dtype, op,
    comm, rank, seq, ...); contributors is 1 and msg_size len(block) unless
    given."""
    n = max(1, -(-len(block) // chunk_size))
    out = []
    for c in range(n):
        pl = block[c * chunk_size:(c + 1) * chunk_size]
        h = _hdr(dict(type=T_DATA, flags=F_LAST if c == n - 1 else 0,
                      chunk=first + c, msg_size=len(block),
                      chunk_size=chunk_size, contributors=1), fields)
        if pl:
            h.add_payload(Raw(pl))
        out.append(h)
    return out


def receipts(keys, **fields):
    """An ACK listing slot keys (a host's receipts, or the switch's
    coalesced ACK): `chunk` is their number."""
    keys = list(keys)
    h = _hdr(dict(type=T_ACK, chunk=len(keys)), fields)
    h.add_payload(ACiSKeys(keys=keys))
    return h


def lookaside(handler, payload=b"", **fields):
    """A LOOKASIDE request to handler `handler` (a rule's acis_handler)."""
    h = _hdr(dict(type=T_LOOKASIDE, opcode=handler), fields)
    if payload:
        h.add_payload(Raw(payload))
    return h
