/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_proto: the ACiS wire protocol, version 1 (doc/wire-format.md).
 *
 * An ACiS message is Ethernet / IPv4 / UDP (destination port 47000 by
 * default) / this 54-byte header / payload. Every multi-byte field is big
 * endian on the wire. The 54 bytes put the payload of an untagged frame at
 * offset 96, so reduce kernels read 32-byte aligned vectors.
 *
 * This library encodes, decodes and validates headers; it is pure C so the
 * switch, the host library, the tests and the fuzzers share one codec.
 */
#ifndef ACIS_PROTO_H
#define ACIS_PROTO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ACIS_PROTO_VERSION 1
#define ACIS_HDR_LEN 54
/** Ethernet + IPv4 + UDP + ACiS header, untagged. */
#define ACIS_FRAME_OVERHEAD (14 + 20 + 8 + ACIS_HDR_LEN)
/** Largest payload in one message for an IPv4 MTU. */
#define ACIS_MAX_PAYLOAD(mtu) ((mtu) - 20 - 8 - ACIS_HDR_LEN)
/** Rank field meaning "not a rank" (e.g. no root). */
#define ACIS_RANK_NONE UINT32_MAX
/** Context id meaning "no communicator" (split with an undefined color). */
#define ACIS_CTX_NONE UINT32_MAX
/** Context id standing, in DATA, ACK and NACK, for the world
 * communicator of the message's job, whatever id the switch gave it (as
 * MPI_COMM_WORLD is one handle in every run): what hand-made and
 * replayed traffic uses. The switch never gives a communicator id 0. */
#define ACIS_CTX_WORLD 0u
/** Largest message per rank that one collective carries (chunk index space). */
#define ACIS_MAX_MSG_SIZE (1ull << 40)

/** Byte offsets in the header of the fields read without decoding it
 * (a stage's quick look; doc/wire-format.md has them all). */
#define ACIS_HOFF_TYPE 1
#define ACIS_HOFF_OPCODE 2
#define ACIS_HOFF_OP 5
#define ACIS_HOFF_JOB 8
#define ACIS_HOFF_COMM 12
#define ACIS_HOFF_SEQ 24
#define ACIS_HOFF_CHUNK 28
#define ACIS_HOFF_PAYLOAD_LEN 40
#define ACIS_HOFF_AUTH 48

/** The auth field: 48 bits. 0 is "none" (an unauthenticated rank); a
 * rank's cookie is any other value (doc/wire-format.md, Authentication). */
#define ACIS_AUTH_BITS 48
#define ACIS_AUTH_MASK ((UINT64_C(1) << ACIS_AUTH_BITS) - 1)

/** A big-endian 16-bit wire field at p. */
static inline uint16_t
acis_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/** The big-endian 48-bit auth field at p (the header's byte 48). */
static inline uint64_t
acis_rd48(const uint8_t *p)
{
	return (uint64_t)acis_rd16(p) << 32 | (uint64_t)p[2] << 24 |
	       (uint64_t)p[3] << 16 | (uint64_t)p[4] << 8 | p[5];
}

/** Write v (its low 48 bits) as the big-endian auth field at p. */
static inline void
acis_wr48(uint8_t *p, uint64_t v)
{
	p[0] = (uint8_t)(v >> 40);
	p[1] = (uint8_t)(v >> 32);
	p[2] = (uint8_t)(v >> 24);
	p[3] = (uint8_t)(v >> 16);
	p[4] = (uint8_t)(v >> 8);
	p[5] = (uint8_t)v;
}

/** A big-endian 32-bit wire field at p. */
static inline uint32_t
acis_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/** Message types. */
enum acis_type {
	ACIS_T_DATA = 1,   /**< a host's contribution to a collective */
	ACIS_T_RESULT = 2, /**< the switch's result (or forwarded block) */
	ACIS_T_ACK = 3,    /**< the switch took a DATA chunk that brings the
			        sender no RESULT of its own */
	ACIS_T_NACK = 4,   /**< the switch refused a message; status says why */
	ACIS_T_CTRL = 5,   /**< control request (opcode: enum acis_ctrl) */
	ACIS_T_CTRL_ACK = 6, /**< control reply */
	ACIS_T_LOOKASIDE = 7, /**< look-aside compute request */
	ACIS_T_MAX
};

/** Collectives (low 4 bits of the opcode). */
enum acis_coll {
	ACIS_C_ALLREDUCE = 1,
	ACIS_C_REDUCE = 2,
	ACIS_C_BCAST = 3,
	ACIS_C_SCATTER = 4,
	ACIS_C_GATHER = 5,
	ACIS_C_ALLGATHER = 6,
	ACIS_C_REDUCE_SCATTER = 7,
	ACIS_C_BARRIER = 8,
	ACIS_C_ALLTOALL = 9,
	ACIS_C_FUSED = 10,  /**< a fused collective (doc/fused.md): the
			         pattern in the opcode's high 4 bits */
	ACIS_C_MAX
};

/** Algorithm selection (high 4 bits of the opcode), thesis Table 3.1. */
enum acis_algo {
	ACIS_A_DEFAULT = 0,
	ACIS_A_BINOMIAL = 1,
	ACIS_A_RECURSIVE_DOUBLING = 2,
	ACIS_A_RECURSIVE_HALVING = 3,
	ACIS_A_RING = 4,
	ACIS_A_MAX
};

/** Fused collectives (ACiS Type 3, doc/fused.md): the opcode's high 4
 * bits when its collective is ACIS_C_FUSED. Stage 1, an op program run
 * in the switch once per rank, then stage 2, with no hosts between. */
enum acis_fused_pattern {
	ACIS_FUSED_ALLREDUCE_OP = 1,           /**< allreduce, op */
	ACIS_FUSED_ALLGATHER_OP = 2,           /**< allgather, op */
	ACIS_FUSED_ALLREDUCE_OP_ALLREDUCE = 3, /**< allreduce, op, allreduce */
	ACIS_FUSED_SCATTER_OP_REDUCE = 4,      /**< scatter, op, reduce */
	ACIS_FUSED_ALLREDUCE_OP_ALLTOALL = 5,  /**< allreduce, op, alltoall */
	ACIS_FUSED_MAX
};

/** A fused call's message from each rank: this 16-byte prefix (little-
 * endian words: block bytes, inbound bytes, the op's output bytes, then
 * the op's number and three zero bytes), the rank's stage-1 block, its
 * inbound buffer. */
#define ACIS_FUSED_PREFIX 16
/** A rank's block, inbound buffer and op output, at most (the thesis's
 * evaluator bound, §5.4); a scatter root's block is its P blocks. */
#define ACIS_FUSED_BUF_MAX 16384u
/** What the op streams in (the stage-1 result a rank sees), at most. */
#define ACIS_FUSED_SIN_MAX 65536u

#define ACIS_OPCODE(coll, algo) ((uint8_t)(((algo) << 4) | (coll)))
#define ACIS_OPCODE_COLL(o) ((o) & 0x0f)
#define ACIS_OPCODE_ALGO(o) ((o) >> 4)

/** Control operations (the opcode of CTRL and CTRL_ACK messages). */
enum acis_ctrl {
	ACIS_CTRL_JOIN = 1,       /**< join job: rank, root = world size */
	ACIS_CTRL_LEAVE = 2,      /**< leave job */
	ACIS_CTRL_SPLIT = 3,      /**< comm split: collective on comm */
	ACIS_CTRL_COMM_FREE = 4,  /**< free comm: collective on comm */
	ACIS_CTRL_COMM_QUERY = 5, /**< my rank in a comm made by management */
	ACIS_CTRL_DEADLINE = 6,   /**< a communicator's deadline (doc/sync.md):
				       chunk 0 sets the period (msg_size, us;
				       0 stops), chunk 1 reports epoch seq
				       done; the switch's signal of epoch seq
				       is a CTRL_ACK flagged MULTICAST, chunk 2 */
	ACIS_CTRL_SSP = 7,        /**< SSP barrier: done with iteration seq,
				       staleness in root, quorum in chunk (0:
				       all); the CTRL_ACK is "continue" */
	ACIS_CTRL_INSTALL = 8,    /**< switch to switch: a communicator's
				       tree (doc/fabric.md): comm, job, root =
				       size, msg_size = entries in all (0:
				       remove the tree), chunk = this frame's
				       first, rank = the root switch's IPv4
				       address, auth = its MAC, payload =
				       entries (acis_tree.h) */
	ACIS_CTRL_OP_CREATE = 9,  /**< a user op (doc/collectives.md): job,
				       rank (world), root = commutative,
				       msg_size = words, payload = name
				       (ACIS_OP_NAME_LEN bytes) then the
				       program's words, little-endian; the
				       CTRL_ACK's op is the op's number,
				       the same for every rank that sends
				       the same program and name */
	ACIS_CTRL_OP_FREE = 10,   /**< op: a rank is done with that user op;
				       it goes when every rank that made it
				       has freed it, or its job ends */
	ACIS_CTRL_MAX
};

/** Flags. */
#define ACIS_F_MULTICAST 0x01 /**< result sent to every member */
#define ACIS_F_LAST 0x02      /**< last chunk of the message */
#define ACIS_F_RETRANS 0x04   /**< a retransmission */
#define ACIS_F_PACKED 0x08    /**< result holds every rank's block */
#define ACIS_F_PARTIAL 0x10   /**< switch to switch in a fabric's tree: a
				   DATA folding `contributors` ranks from
				   `rank` on, or the RESULT sent back down
				   for them (doc/fabric.md) */

/** Datatypes. The 8 and 16-bit integers are MPI's char, signed char and
 * int8_t (int8), unsigned char and uint8_t (uint8), short and int16_t
 * (int16), unsigned short and uint16_t (uint16), as in SHARP. */
enum acis_dtype {
	ACIS_INT32 = 1,
	ACIS_INT64 = 2,
	ACIS_UINT32 = 3,
	ACIS_UINT64 = 4,
	ACIS_FLOAT32 = 5,
	ACIS_FLOAT64 = 6,
	ACIS_FLOAT16 = 7,
	ACIS_BFLOAT16 = 8,
	ACIS_INT8 = 9,
	ACIS_UINT8 = 10,
	ACIS_INT16 = 11,
	ACIS_UINT16 = 12,
	ACIS_DTYPE_MAX
};

/** Reduction operations. */
enum acis_op {
	ACIS_OP_NONE = 0, /**< not a reduction */
	ACIS_OP_SUM = 1,
	ACIS_OP_PROD = 2,
	ACIS_OP_MIN = 3,
	ACIS_OP_MAX = 4,
	ACIS_OP_BAND = 5,
	ACIS_OP_BOR = 6,
	ACIS_OP_BXOR = 7,
	ACIS_OP_MAX_ = 8
};

/** Ops from here to 255 are user-defined (doc/collectives.md, "User-
 * defined operators"): CGRA programs a job registered with the switch
 * (CTRL OP_CREATE), numbered by the switch. */
#define ACIS_OP_USER_MIN 128
/** A user op's program, at most this many 32-bit words (one frame). */
#define ACIS_OP_WORDS_MAX 256
/** Bytes of a user op's name in OP_CREATE's payload (NUL-padded). */
#define ACIS_OP_NAME_LEN 32

/** Status codes carried in NACK, CTRL_ACK and failed RESULTs. */
enum acis_status {
	ACIS_S_OK = 0,
	ACIS_S_BUSY = 1,          /**< no free slot; retry later */
	ACIS_S_NO_JOB = 2,        /**< unknown job */
	ACIS_S_NO_COMM = 3,       /**< unknown communicator */
	ACIS_S_NOT_MEMBER = 4,    /**< sender is not that rank of the comm */
	ACIS_S_BAD_ARGS = 5,      /**< fields inconsistent or out of range */
	ACIS_S_MISMATCH = 6,      /**< disagrees with other contributions */
	ACIS_S_RANK_TAKEN = 7,    /**< join: rank held by another endpoint */
	ACIS_S_SIZE_MISMATCH = 8, /**< join: world size differs */
	ACIS_S_FULL = 9,          /**< table full (jobs, comms, members) */
	ACIS_S_TIMEOUT = 10,      /**< deadline passed */
	ACIS_S_PENDING = 11,      /**< have it; waiting for other ranks */
	ACIS_S_GONE = 12,         /**< the answer was freed before this rank
				       confirmed it (unconfirmed past the
				       linger time): it cannot be sent again */
	ACIS_S_LIMIT = 13,        /**< join: this host has begun as many jobs
				       as the switch allows one host
				       ([collective] max_jobs_per_host) */
	ACIS_S_AUTH = 14,         /**< join: the switch requires a cookie
				       ([collective] auth = required) and
				       this rank sent none */
	ACIS_S_OP_FAULT = 15,     /**< a user op's program failed on this
				       collective: NACK payload = the
				       switch's message, naming the op */
	ACIS_S_NO_OP = 16,        /**< no such user op for this job, or no
				       room for another */
	ACIS_S_MAX
};

/** Decoded header, host byte order. */
struct acis_hdr {
	uint8_t version;
	uint8_t type;
	uint8_t opcode;
	uint8_t flags;
	uint8_t dtype;
	uint8_t op;
	uint16_t hdr_len;
	uint32_t job;
	uint32_t comm;
	uint32_t rank;
	uint32_t root;
	uint32_t seq;
	uint32_t chunk;
	uint64_t msg_size;
	uint16_t payload_len;
	uint16_t chunk_size;
	uint16_t contributors;
	uint16_t status;
	/** the sending rank's cookie (to the switch) or the receiving
	 * rank's (from it); 0: none. 48 bits on the wire. */
	uint64_t auth;
};

/** Write h as 54 wire bytes at p (auth: its low 48 bits). */
void acis_hdr_encode(const struct acis_hdr *h, uint8_t *p);

/** Rewrite the payload_len field of the encoded header at p (a stage
 * that replaces a message's payload). */
void acis_hdr_set_payload_len(uint8_t *p, uint16_t len);

/** Read 54 wire bytes at p into h (no checks). */
void acis_hdr_decode(const uint8_t *p, struct acis_hdr *h);

/** Why a header is invalid: 0 when valid, else an ACIS_E_* value. */
enum acis_hdr_error {
	ACIS_E_OK = 0,
	ACIS_E_TRUNCATED,   /**< fewer than 54 bytes, or hdr_len beyond them */
	ACIS_E_VERSION,     /**< version is not 1 */
	ACIS_E_TYPE,        /**< unknown message type */
	ACIS_E_OPCODE,      /**< unknown collective, algorithm or control op */
	ACIS_E_DTYPE,       /**< unknown datatype */
	ACIS_E_OP,          /**< unknown op, or bitwise op on a float type */
	ACIS_E_LENGTH,      /**< payload_len disagrees with the bytes present */
	ACIS_E_CHUNK,       /**< chunk size/index/payload outside the message */
	ACIS_E_MAX
};

/**
 * Decode and validate the message of len bytes at p (the UDP payload).
 * Returns ACIS_E_OK and fills h, or the first fault found. Checks that
 * depend on switch state (comm, rank, slot) are the caller's.
 */
enum acis_hdr_error acis_msg_parse(const uint8_t *p, size_t len,
				   struct acis_hdr *h);

/** Counter name of a header error ("acis_bad_version", ...). */
const char *acis_hdr_error_name(unsigned int e);

/** Bytes per element of a datatype, 0 if unknown. */
unsigned int acis_dtype_size(unsigned int dtype);
/** "float32", "int64", ... or "unknown". */
const char *acis_dtype_name(unsigned int dtype);
/** "sum", "band", ... or "unknown". */
const char *acis_op_name(unsigned int op);
/** "allreduce", ... or "unknown". */
const char *acis_coll_name(unsigned int coll);
/** "allreduce_op_allreduce", ... (a fused pattern) or "unknown". */
const char *acis_fused_name(unsigned int pattern);
/** The fused pattern named so, or 0. */
unsigned int acis_fused_parse(const char *name);
/** 1 if op is defined on dtype (bitwise ops only on integers). */
int acis_op_valid(unsigned int op, unsigned int dtype);

/** Chunks a message of msg_size bytes takes with chunk_size (min 1). */
static inline uint64_t
acis_n_chunks(uint64_t msg_size, uint32_t chunk_size)
{
	return msg_size == 0 ? 1 : (msg_size + chunk_size - 1) / chunk_size;
}

#ifdef __cplusplus
}
#endif

#endif /* ACIS_PROTO_H */
