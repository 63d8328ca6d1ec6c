/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_cgra: the look-aside CGRA of ACiS Type 2 (FLASH, thesis ch. 4) as a
 * pure-C machine, plus its assembler and disassembler and the reader of
 * program files.
 *
 * The instruction set, its binary encoding and the machine model are
 * specified in doc/cgra-isa.md; this header is the host's view of it:
 *
 *  - a machine is a chain of n_vpe vector processing elements (1..31,
 *    default 16), each 16 FP32 SIMD lanes with a private vector register
 *    file of 4096 registers x 16 lanes, and one scalar register file
 *    (x0..x31) that drives control flow. Every vector instruction runs on
 *    all VPEs in lockstep; VPE p works on its own VRF and, by default, on
 *    its own data bank p + 1;
 *  - memory is 32 "HBM banks": bank 0 holds instructions, banks
 *    1..n_banks hold resident data (acis_cgra_mem_write/read);
 *  - the control block (acis_cgra_reg_read/write, ACIS_CGRA_REG_*) is the
 *    AXI-Lite map: ap_start/ap_done at 0x000, a base address per bank. A
 *    start runs the instruction loader, which decodes and checks the
 *    program into the configuration tables and raises ap_ready;
 *  - acis_cgra_run is one invocation of the packet handler (thesis
 *    §4.5.2): the payload is stream_in, what streamout.v emits is
 *    stream_out, the packet_length CSR gives the new length, wfi ends it
 *    and raises ap_done. Registers, VRFs and banks persist from one packet
 *    to the next; every run starts at instruction 0.
 *
 * A run never reads or writes outside the machine: every memory and VRF
 * access is checked and a bad one ends the run with an error code, as
 * does exceeding the instruction budget. A machine is not thread safe; use
 * one per thread.
 */
#ifndef ACIS_CGRA_H
#define ACIS_CGRA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ACIS_CGRA_LANES 16        /* FP32 lanes per vector register */
#define ACIS_CGRA_MAX_VPE 31      /* 32 HBM banks, one for instructions */
#define ACIS_CGRA_MAX_BANKS 32    /* bank 0 + up to 31 data banks */
#define ACIS_CGRA_VREGS 4096      /* vector registers per VRF (maximum) */
#define ACIS_CGRA_MAX_LMUL 2048   /* register grouping limit */
#define ACIS_CGRA_XREGS 32        /* scalar registers */

/* Error codes (negative); acis_cgra_strerror names them. */
enum {
	ACIS_CGRA_OK = 0,
	ACIS_CGRA_E_INVAL = -1,    /* bad argument from the host */
	ACIS_CGRA_E_NOTREADY = -2, /* no program loaded (or stopped) */
	ACIS_CGRA_E_LOAD = -3,     /* the loader refused the program */
	ACIS_CGRA_E_BUDGET = -4,   /* instruction budget of a run exceeded */
	ACIS_CGRA_E_MEM = -5,      /* memory access outside a bank's region */
	ACIS_CGRA_E_VRF = -6,      /* v0[x] element outside the VRF */
	ACIS_CGRA_E_OUTFULL = -7,  /* stream_out longer than out_cap */
	ACIS_CGRA_E_PKTLEN = -8,   /* packet_length above what was streamed */
	ACIS_CGRA_E_NOMEM = -9,    /* allocation failed */
};

/* Machine parameters; zero fields take the defaults. */
struct acis_cgra_config {
	unsigned int n_vpe;      /* 1..31, default 16 */
	unsigned int n_banks;    /* data banks 1..31, default n_vpe */
	size_t bank_size;        /* bytes per data bank, default 1 MiB */
	size_t insn_bank_size;   /* bytes of bank 0, default 64 KiB */
	unsigned int vrf_regs;   /* registers per VRF, power of two 16..4096,
				  * default 4096 */
	uint64_t insn_budget;    /* instructions per run, default 1 << 26 */
	unsigned int flags;      /* ACIS_CGRA_F_*, default 0; others refused */
};

/* Run every instruction on its own: no fused sequences (the loader fuses
 * a few common ones into one pass; results are the same either way, and
 * the tests compare the two). */
#define ACIS_CGRA_F_NOFUSE 0x1
/* Every run starts with the scalar registers, tile and packet_length as
 * a load leaves them (zero, no tile), not as the last run left them: a
 * run's result then depends on its input and the banks alone, whatever
 * ran before it (user-defined reduction operators, acis_userop.h). The
 * VRF is left as it was. */
#define ACIS_CGRA_F_STATELESS 0x2

/* What one run did. */
struct acis_cgra_run_stats {
	uint64_t instructions;   /* executed, wfi included */
	uint64_t vector_insns;   /* of which vector instructions */
	uint64_t element_ops;    /* elements processed, summed over VPEs */
	uint64_t cycles;         /* cost model of doc/cgra-isa.md */
	uint64_t tiles_skipped;  /* by the idle-tile control in this run */
	size_t in_consumed;      /* stream_in bytes consumed */
};

/* Totals since the last load. */
struct acis_cgra_counters {
	uint64_t runs;
	uint64_t instructions;
	uint64_t cycles;
	uint64_t tiles_skipped;
	uint64_t passthrough;    /* packets forwarded in pass-through mode */
};

/*
 * The control block (AXI-Lite), 32-bit registers.
 *
 * CTRL: write AP_START to run the instruction loader on INSN_COUNT words
 * at BASE[0] of bank 0 (on success AP_READY rises; on refusal ERR holds
 * ACIS_CGRA_E_LOAD and acis_cgra_last_error says why); write AP_STOP to
 * unload (runs are refused until the next start). AP_DONE is raised by
 * wfi at the end of each run and cleared by reading CTRL. AP_IDLE is set
 * whenever no run is in progress (always, seen from the host).
 * MODE: MODE_PASSTHROUGH forwards every packet unchanged without running
 * the program. BASE[k]: byte offset in bank k where the kernel's view of
 * the bank begins; kernel addresses are relative to it.
 */
#define ACIS_CGRA_REG_CTRL 0x000
#define ACIS_CGRA_REG_MODE 0x004
#define ACIS_CGRA_REG_INSN_COUNT 0x008
#define ACIS_CGRA_REG_ERR 0x00c       /* read only: -(last error code) */
#define ACIS_CGRA_REG_BASE(k) (0x010 + 4 * (k))  /* k = 0..31 */
#define ACIS_CGRA_REG_RUNS 0x090      /* read only, low 32 bits */
#define ACIS_CGRA_REG_SKIPPED 0x094   /* read only, low 32 bits */

#define ACIS_CGRA_AP_START 0x01
#define ACIS_CGRA_AP_DONE 0x02
#define ACIS_CGRA_AP_IDLE 0x04
#define ACIS_CGRA_AP_READY 0x08
#define ACIS_CGRA_AP_STOP 0x10

#define ACIS_CGRA_MODE_PASSTHROUGH 0x01

struct acis_cgra;

/* A machine with every register, VRF and bank zeroed and no program.
 * cfg may be NULL for the defaults. NULL if cfg is out of range or memory
 * is short. */
struct acis_cgra *acis_cgra_create(const struct acis_cgra_config *cfg);
void acis_cgra_free(struct acis_cgra *m);

/* The configuration in effect (defaults filled in). */
void acis_cgra_get_config(const struct acis_cgra *m,
			  struct acis_cgra_config *cfg);

/*
 * Load a program: copy n words to bank 0 at BASE[0], set INSN_COUNT and
 * start the loader. 0 when ap_ready rose; ACIS_CGRA_E_LOAD with
 * "instruction I (mnemonic): reason" in err when the loader refused it
 * (the previous program is then unloaded). A successful load resets the
 * scalar registers, the VRFs and the CSRs; banks are left alone.
 */
int acis_cgra_load(struct acis_cgra *m, const uint32_t *words, size_t n,
		   char *err, size_t errlen);

/* Host access to a bank (0 = instructions), absolute byte offsets. */
int acis_cgra_mem_write(struct acis_cgra *m, unsigned int bank, size_t off,
			const void *buf, size_t len);
int acis_cgra_mem_read(const struct acis_cgra *m, unsigned int bank,
		       size_t off, void *buf, size_t len);

/* The control block. reg_write returns ACIS_CGRA_E_INVAL for an unknown
 * or read-only register or a base beyond its bank, ACIS_CGRA_E_LOAD when
 * a start was refused. Reading CTRL clears AP_DONE. */
uint32_t acis_cgra_reg_read(struct acis_cgra *m, uint32_t addr);
int acis_cgra_reg_write(struct acis_cgra *m, uint32_t addr, uint32_t val);

/* Shorthand for MODE_PASSTHROUGH on or off. */
void acis_cgra_set_passthrough(struct acis_cgra *m, int on);

/*
 * Run the packet handler on one packet: in/in_len is the payload
 * (stream_in), out/out_cap receives stream_out and *out_len its length
 * (packet_length if the handler wrote it). 0 on wfi, else a negative
 * code (acis_cgra_last_error has the instruction and the reason); st, if
 * not NULL, is filled either way.
 */
int acis_cgra_run(struct acis_cgra *m, const void *in, size_t in_len,
		  void *out, size_t out_cap, size_t *out_len,
		  struct acis_cgra_run_stats *st);

void acis_cgra_get_counters(const struct acis_cgra *m,
			    struct acis_cgra_counters *c);

/* Debug access for tests and tools (no hardware counterpart): scalar
 * registers, and VRF elements of one VPE by flat element index (register
 * r lane l is element 16 * r + l). */
uint32_t acis_cgra_xreg(const struct acis_cgra *m, unsigned int r);
int acis_cgra_vrf_read(const struct acis_cgra *m, unsigned int vpe,
		       uint32_t elem, float *buf, size_t n);
int acis_cgra_vrf_write(struct acis_cgra *m, unsigned int vpe,
			uint32_t elem, const float *buf, size_t n);

const char *acis_cgra_strerror(int err);
/* Why the last load or run failed ("" if it did not). */
const char *acis_cgra_last_error(const struct acis_cgra *m);

/*
 * Assembler: src (NUL terminated) to *words (malloc'd, caller frees) and
 * *n. On error returns -1 and err holds "FILE:LINE:COL: error: what was
 * expected"; fname is only used in messages (NULL gives "<input>").
 */
int acis_cgra_asm(const char *src, const char *fname, uint32_t **words,
		  size_t *n, char *err, size_t errlen);

/*
 * A whole file into *buf (malloc'd, caller frees; NUL terminated, the NUL
 * not counted in *len), for programs and resident data alike. Reads until
 * end of file, so pipes and /proc files work too. On error returns -1,
 * *buf is NULL and err holds "PATH: reason" (strerror's words).
 */
int acis_cgra_read_file(const char *path, uint8_t **buf, size_t *len,
			char *err, size_t errlen);

/*
 * Assemble the file at path, whatever its name: its text must hold no NUL
 * byte. As acis_cgra_read_program does for a name not ending in ".bin".
 */
int acis_cgra_asm_file(const char *path, uint32_t **words, size_t *n,
		       char *err, size_t errlen);

/*
 * A program file to *words (malloc'd, caller frees) and *n, by one rule
 * for every reader of programs: a name ending in ".bin" holds 32-bit
 * little-endian instruction words (acis-asm -o), at least one; any other
 * name holds assembler text, which is assembled (text with a NUL byte is
 * refused: binaries must end in .bin). On error returns -1, *words is
 * NULL and err names the file and what is wrong with it (for text, the
 * assembler's "FILE:LINE:COL: error: ..."). The loader's checks are not
 * made here: see acis_cgra_load.
 */
int acis_cgra_read_program(const char *path, uint32_t **words, size_t *n,
			   char *err, size_t errlen);

/*
 * Disassembler: n words to canonical text (malloc'd, caller frees; NULL
 * if memory is short). Branch targets get labels L<index>; a word that is
 * no instruction becomes ".word 0x...". Assembling the text gives the
 * same words back.
 */
char *acis_cgra_disasm(const uint32_t *words, size_t n);

/* One instruction, without labels (branches show their byte offset).
 * Returns the length snprintf would. */
int acis_cgra_disasm_one(uint32_t word, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_CGRA_H */
