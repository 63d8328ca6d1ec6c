/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FLASH instruction encoding (doc/cgra-isa.md): opcodes, field
 * positions, CSR numbers, and the word <-> fields codec shared by the
 * instruction loader, the assembler and the disassembler. Internal to
 * lib/cgra.
 */
#ifndef CGRA_ISA_H
#define CGRA_ISA_H

#include <stddef.h>
#include <stdint.h>

/* Major opcodes, bits 6:0. The scalar and configuration instructions are
 * RV32I/Zicsr encoded; the vector ones live in the custom spaces because
 * RISC-V's 5-bit vector fields cannot name 4096 registers. */
#define OPC_LUI 0x37
#define OPC_OPIMM 0x13
#define OPC_OP 0x33
#define OPC_BRANCH 0x63
#define OPC_SYSTEM 0x73
#define OPC_VV 0x0b      /* custom-0: vfadd.vv, vfmul.vv */
#define OPC_VX 0x2b      /* custom-1: vmacc, spvacc, streamout */
#define OPC_VM 0x5b      /* custom-2: vle32.v, vse32.v */
#define OPC_VCFG 0x7b    /* custom-3: vsetivli */

#define WFI_WORD 0x10500073u

/* funct3 of OPC_VX, bits 9:7 */
#define VX_VMACC_VX 0
#define VX_VMACC_XV 1
#define VX_SPVACC_VX 2
#define VX_SPVACC_XV 3
#define VX_STREAMOUT 4
#define VX_STREAMOUT_SIN 5
#define VX_VEXT 6        /* NGRA element-wise ops: sub-op in bits 31:27 */
#define VX_VRED 7        /* NGRA cross-lane reductions: sub-op 31:27 */

/* CSR numbers */
#define CSR_CYCLE 0xc00          /* read only */
#define CSR_PACKET_LENGTH 0x800
#define CSR_TILE 0x801
#define CSR_SIN_WORD 0xcc0       /* read only; a read pops a word */
#define CSR_SIN_LEFT 0xcc1       /* read only */

/* Instructions, in the order of the mnemonic table. */
enum cgra_op {
	OP_LUI,
	OP_ADDI,
	OP_ADD,
	OP_BNE,
	OP_CSRRW,
	OP_WFI,
	OP_VSETIVLI,
	OP_VLE,
	OP_VSE,
	OP_VFADD,
	OP_VFMUL,
	OP_VMACC_VX,
	OP_VMACC_XV,
	OP_SPVACC_VX,
	OP_SPVACC_XV,
	OP_STREAMOUT,
	OP_STREAMOUT_SIN,
	OP_VEXT,         /* vd[i] = f(a[i], vd[i]), f by the sub-op; a the
			  * stream, or (rs != 0) the VRF from x[rs] */
	OP_VRED,         /* v0[x[rs]] = a reduction tree over vs[0..VL) */
	OP_COUNT
};

/* Sub-ops of OP_VEXT (the NGRA's typed PEs and partial predication,
 * doc/cgra-isa.md §4.1), in encoding order: new ones go at the end, so
 * that existing words keep their meaning. */
enum cgra_vext {
	VE_ADD_I32, VE_MUL_I32, VE_AND, VE_OR, VE_XOR,
	VE_MAX_I32, VE_MIN_I32, VE_MAX_U32, VE_MIN_U32,
	VE_FMAX, VE_FMIN,
	VE_SADD_I8, VE_SADD_U8, VE_SADD_I16, VE_SADD_U16,
	VE_MAXLOC, VE_MINLOC,
	VE_FDIV, VE_FSQRT, VE_FCVT_F_X, VE_FCVT_X_F,
	VE_MFLT, VE_MERGE,
	VE_FADD, VE_FSUB, VE_FMUL,   /* 23..25 */
	VE_COUNT
};

/* Sub-ops of OP_VRED (the NGRA's cross-lane reduction tree). */
enum cgra_vred {
	VR_SUM_F32, VR_MAX_F32, VR_MIN_F32, VR_SUM_I32, VR_MAX_I32,
	VR_MIN_I32,
	VR_COUNT
};

/* The operands of one instruction, whatever its format. */
struct cgra_fields {
	uint8_t op;        /* enum cgra_op */
	uint8_t rd;        /* lui addi add csrrw vsetivli */
	uint8_t rs1;       /* addi add bne csrrw; vle/vse address; the x of
			    * vmacc, spvacc, vred and vmerge; vext's operand
			    * (0 = the stream) */
	uint8_t rs2;       /* add bne */
	uint16_t v;        /* vector register: vd, vs2 (.xv forms), vs, vs3 */
	uint16_t v2;       /* vs2 of vfadd.vv / vfmul.vv */
	uint8_t bank;      /* vle/vse: 0 = each VPE's own bank */
	uint8_t lmul_log2; /* vsetivli */
	uint16_t avl;      /* vsetivli */
	uint16_t csr;      /* csrrw */
	uint8_t sub;       /* vext, vred: the sub-op */
	int32_t imm;       /* addi: -2048..2047; lui: 0..0xfffff (bits
			    * 31:12); bne: byte offset, even, -4096..4094 */
};

/* Mnemonic of an op ("streamout.v" for both streamout forms; "vext"
 * and "vred" for the families, acis_cgra_isa_ext_name names a member). */
const char *acis_cgra_isa_mnemonic(unsigned int op);

/* Mnemonic of sub-op sub of OP_VEXT or OP_VRED, NULL if none. */
const char *acis_cgra_isa_ext_name(unsigned int op, unsigned int sub);

/* The op and sub-op of an extension mnemonic: 0, or -1 if none. */
int acis_cgra_isa_ext_lookup(const char *name, size_t len, uint8_t *op,
			     uint8_t *sub);

/* Fields of a word. 0, or -1 with a reason in why[]. */
int acis_cgra_isa_decode(uint32_t w, struct cgra_fields *f, char *why,
			 size_t len);

/* Word of fields (assumed in range). */
uint32_t acis_cgra_isa_encode(const struct cgra_fields *f);

/* Name of a CSR number, NULL if it is none of ours. */
const char *acis_cgra_isa_csr_name(unsigned int csr);
/* 1 if the CSR is read only. */
int acis_cgra_isa_csr_readonly(unsigned int csr);

#endif /* CGRA_ISA_H */
