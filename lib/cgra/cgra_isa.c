/* SPDX-License-Identifier: BSD-3-Clause */
/* The word <-> fields codec of the FLASH encoding; see cgra_isa.h. */
#include <stdio.h>
#include <string.h>

#include "cgra_isa.h"

static const char *const mnemonics[OP_COUNT] = {
	[OP_LUI] = "lui",
	[OP_ADDI] = "addi",
	[OP_ADD] = "add",
	[OP_BNE] = "bne",
	[OP_CSRRW] = "csrrw",
	[OP_WFI] = "wfi",
	[OP_VSETIVLI] = "vsetivli",
	[OP_VLE] = "vle32.v",
	[OP_VSE] = "vse32.v",
	[OP_VFADD] = "vfadd.vv",
	[OP_VFMUL] = "vfmul.vv",
	[OP_VMACC_VX] = "vmacc.vx",
	[OP_VMACC_XV] = "vmacc.xv",
	[OP_SPVACC_VX] = "spvacc.vx",
	[OP_SPVACC_XV] = "spvacc.xv",
	[OP_STREAMOUT] = "streamout.v",
	[OP_STREAMOUT_SIN] = "streamout.v",
	[OP_VEXT] = "vext",
	[OP_VRED] = "vred",
};

static const char *const vext_names[VE_COUNT] = {
	[VE_ADD_I32] = "vadd.i32",
	[VE_MUL_I32] = "vmul.i32",
	[VE_AND] = "vand",
	[VE_OR] = "vor",
	[VE_XOR] = "vxor",
	[VE_MAX_I32] = "vmax.i32",
	[VE_MIN_I32] = "vmin.i32",
	[VE_MAX_U32] = "vmax.u32",
	[VE_MIN_U32] = "vmin.u32",
	[VE_FMAX] = "vfmax.f32",
	[VE_FMIN] = "vfmin.f32",
	[VE_SADD_I8] = "vsadd.i8",
	[VE_SADD_U8] = "vsadd.u8",
	[VE_SADD_I16] = "vsadd.i16",
	[VE_SADD_U16] = "vsadd.u16",
	[VE_MAXLOC] = "vmaxloc.f32",
	[VE_MINLOC] = "vminloc.f32",
	[VE_FDIV] = "vfdiv.f32",
	[VE_FSQRT] = "vfsqrt.f32",
	[VE_FCVT_F_X] = "vfcvt.f.x",
	[VE_FCVT_X_F] = "vfcvt.x.f",
	[VE_MFLT] = "vmflt.f32",
	[VE_MERGE] = "vmerge",
	[VE_FADD] = "vfadd.f32",
	[VE_FSUB] = "vfsub.f32",
	[VE_FMUL] = "vfmul.f32",
};

static const char *const vred_names[VR_COUNT] = {
	[VR_SUM_F32] = "vredsum.f32",
	[VR_MAX_F32] = "vredmax.f32",
	[VR_MIN_F32] = "vredmin.f32",
	[VR_SUM_I32] = "vredsum.i32",
	[VR_MAX_I32] = "vredmax.i32",
	[VR_MIN_I32] = "vredmin.i32",
};

const char *
acis_cgra_isa_mnemonic(unsigned int op)
{
	return op < OP_COUNT ? mnemonics[op] : "?";
}

const char *
acis_cgra_isa_ext_name(unsigned int op, unsigned int sub)
{
	if (op == OP_VEXT && sub < VE_COUNT)
		return vext_names[sub];
	if (op == OP_VRED && sub < VR_COUNT)
		return vred_names[sub];
	return NULL;
}

int
acis_cgra_isa_ext_lookup(const char *name, size_t len, uint8_t *op,
			 uint8_t *sub)
{
	unsigned int i;

	for (i = 0; i < VE_COUNT; i++)
		if (strlen(vext_names[i]) == len &&
		    strncmp(vext_names[i], name, len) == 0) {
			*op = OP_VEXT;
			*sub = (uint8_t)i;
			return 0;
		}
	for (i = 0; i < VR_COUNT; i++)
		if (strlen(vred_names[i]) == len &&
		    strncmp(vred_names[i], name, len) == 0) {
			*op = OP_VRED;
			*sub = (uint8_t)i;
			return 0;
		}
	return -1;
}

const char *
acis_cgra_isa_csr_name(unsigned int csr)
{
	switch (csr) {
	case CSR_CYCLE:
		return "cycle";
	case CSR_PACKET_LENGTH:
		return "packet_length";
	case CSR_TILE:
		return "tile";
	case CSR_SIN_WORD:
		return "sin_word";
	case CSR_SIN_LEFT:
		return "sin_left";
	}
	return NULL;
}

int
acis_cgra_isa_csr_readonly(unsigned int csr)
{
	return csr == CSR_CYCLE || csr == CSR_SIN_WORD || csr == CSR_SIN_LEFT;
}

static int
fail(char *why, size_t len, const char *msg, uint32_t w)
{
	snprintf(why, len, msg, (unsigned int)w);
	return -1;
}

#define BITS(w, hi, lo) (((w) >> (lo)) & ((1u << ((hi) - (lo) + 1)) - 1))

int
acis_cgra_isa_decode(uint32_t w, struct cgra_fields *f, char *why, size_t len)
{
	uint32_t opc = w & 0x7f, f3 = BITS(w, 14, 12);

	memset(f, 0, sizeof(*f));
	switch (opc) {
	case OPC_LUI:
		f->op = OP_LUI;
		f->rd = BITS(w, 11, 7);
		f->imm = (int32_t)(w >> 12);
		return 0;
	case OPC_OPIMM:
		if (f3 != 0)
			return fail(why, len, "unknown OP-IMM funct3 %u "
				    "(only addi)", f3);
		f->op = OP_ADDI;
		f->rd = BITS(w, 11, 7);
		f->rs1 = BITS(w, 19, 15);
		f->imm = (int32_t)w >> 20;
		return 0;
	case OPC_OP:
		if (f3 != 0 || BITS(w, 31, 25) != 0)
			return fail(why, len, "unknown OP funct3/funct7 in "
				    "0x%08x (only add)", w);
		f->op = OP_ADD;
		f->rd = BITS(w, 11, 7);
		f->rs1 = BITS(w, 19, 15);
		f->rs2 = BITS(w, 24, 20);
		return 0;
	case OPC_BRANCH:
		if (f3 != 1)
			return fail(why, len, "unknown BRANCH funct3 %u "
				    "(only bne)", f3);
		f->op = OP_BNE;
		f->rs1 = BITS(w, 19, 15);
		f->rs2 = BITS(w, 24, 20);
		f->imm = (int32_t)(BITS(w, 11, 8) << 1 | BITS(w, 30, 25) << 5 |
				   BITS(w, 7, 7) << 11 | BITS(w, 31, 31) << 12);
		if (f->imm & 0x1000)
			f->imm -= 0x2000;
		return 0;
	case OPC_SYSTEM:
		if (w == WFI_WORD) {
			f->op = OP_WFI;
			return 0;
		}
		if (f3 != 1)
			return fail(why, len, "unknown SYSTEM instruction "
				    "0x%08x (only csrrw and wfi)", w);
		f->op = OP_CSRRW;
		f->rd = BITS(w, 11, 7);
		f->rs1 = BITS(w, 19, 15);
		f->csr = BITS(w, 31, 20);
		return 0;
	case OPC_VV:
		f->op = BITS(w, 31, 31) ? OP_VFMUL : OP_VFADD;
		f->v = BITS(w, 18, 7);
		f->v2 = BITS(w, 30, 19);
		return 0;
	case OPC_VX:
		f->v = BITS(w, 21, 10);
		f->rs1 = BITS(w, 26, 22);
		f->sub = (uint8_t)BITS(w, 31, 27);
		if (BITS(w, 9, 7) == VX_VEXT) {
			if (f->sub >= VE_COUNT) {
				snprintf(why, len, "unknown element-wise "
					 "sub-op %u (0..%u)", f->sub,
					 VE_COUNT - 1);
				return -1;
			}
			/* rs (26:22) is vmerge's mask; for the others 0
			 * is the stream and any other register holds the
			 * operand's first element: every value is valid */
			f->op = OP_VEXT;
			return 0;
		}
		if (BITS(w, 9, 7) == VX_VRED) {
			if (f->sub >= VR_COUNT) {
				snprintf(why, len, "unknown reduction sub-op "
					 "%u (0..%u)", f->sub, VR_COUNT - 1);
				return -1;
			}
			f->op = OP_VRED;
			return 0;
		}
		if (f->sub != 0)
			return fail(why, len, "reserved bits 31:27 set in "
				    "0x%08x", w);
		switch (BITS(w, 9, 7)) {
		case VX_VMACC_VX:
			f->op = OP_VMACC_VX;
			return 0;
		case VX_VMACC_XV:
			f->op = OP_VMACC_XV;
			return 0;
		case VX_SPVACC_VX:
			f->op = OP_SPVACC_VX;
			return 0;
		case VX_SPVACC_XV:
			f->op = OP_SPVACC_XV;
			return 0;
		case VX_STREAMOUT:
			if (f->rs1 != 0)
				return fail(why, len, "reserved bits 26:22 "
					    "set in streamout.v 0x%08x", w);
			f->op = OP_STREAMOUT;
			return 0;
		case VX_STREAMOUT_SIN:
			if (f->rs1 != 0 || f->v != 0)
				return fail(why, len, "reserved bits 26:10 "
					    "set in streamout.v sin 0x%08x",
					    w);
			f->op = OP_STREAMOUT_SIN;
			return 0;
		}
		return fail(why, len, "unknown custom-1 funct3 %u",
			    BITS(w, 9, 7));
	case OPC_VM:
		if (BITS(w, 31, 30) != 0)
			return fail(why, len, "reserved bits 31:30 set in "
				    "0x%08x", w);
		f->op = BITS(w, 7, 7) ? OP_VSE : OP_VLE;
		f->v = BITS(w, 19, 8);
		f->rs1 = BITS(w, 24, 20);
		f->bank = BITS(w, 29, 25);
		return 0;
	case OPC_VCFG:
		f->op = OP_VSETIVLI;
		f->rd = BITS(w, 11, 7);
		f->lmul_log2 = BITS(w, 15, 12);
		f->avl = BITS(w, 31, 16);
		return 0;
	}
	return fail(why, len, "unknown opcode 0x%02x", opc);
}

uint32_t
acis_cgra_isa_encode(const struct cgra_fields *f)
{
	uint32_t imm = (uint32_t)f->imm;

	switch (f->op) {
	case OP_LUI:
		return (imm & 0xfffff) << 12 | (uint32_t)f->rd << 7 | OPC_LUI;
	case OP_ADDI:
		return (imm & 0xfff) << 20 | (uint32_t)f->rs1 << 15 |
		       (uint32_t)f->rd << 7 | OPC_OPIMM;
	case OP_ADD:
		return (uint32_t)f->rs2 << 20 | (uint32_t)f->rs1 << 15 |
		       (uint32_t)f->rd << 7 | OPC_OP;
	case OP_BNE:
		return ((imm >> 12) & 1) << 31 | ((imm >> 5) & 0x3f) << 25 |
		       (uint32_t)f->rs2 << 20 | (uint32_t)f->rs1 << 15 |
		       1u << 12 | ((imm >> 1) & 0xf) << 8 |
		       ((imm >> 11) & 1) << 7 | OPC_BRANCH;
	case OP_CSRRW:
		return (uint32_t)f->csr << 20 | (uint32_t)f->rs1 << 15 |
		       1u << 12 | (uint32_t)f->rd << 7 | OPC_SYSTEM;
	case OP_WFI:
		return WFI_WORD;
	case OP_VSETIVLI:
		return (uint32_t)f->avl << 16 | (uint32_t)f->lmul_log2 << 12 |
		       (uint32_t)f->rd << 7 | OPC_VCFG;
	case OP_VLE:
	case OP_VSE:
		return (uint32_t)f->bank << 25 | (uint32_t)f->rs1 << 20 |
		       (uint32_t)f->v << 8 |
		       (uint32_t)(f->op == OP_VSE) << 7 | OPC_VM;
	case OP_VFADD:
	case OP_VFMUL:
		return (uint32_t)(f->op == OP_VFMUL) << 31 |
		       (uint32_t)f->v2 << 19 | (uint32_t)f->v << 7 | OPC_VV;
	case OP_VMACC_VX:
	case OP_VMACC_XV:
	case OP_SPVACC_VX:
	case OP_SPVACC_XV:
	case OP_STREAMOUT:
	case OP_STREAMOUT_SIN: {
		static const uint8_t f3[OP_COUNT] = {
			[OP_VMACC_VX] = VX_VMACC_VX,
			[OP_VMACC_XV] = VX_VMACC_XV,
			[OP_SPVACC_VX] = VX_SPVACC_VX,
			[OP_SPVACC_XV] = VX_SPVACC_XV,
			[OP_STREAMOUT] = VX_STREAMOUT,
			[OP_STREAMOUT_SIN] = VX_STREAMOUT_SIN,
		};

		return (uint32_t)f->rs1 << 22 | (uint32_t)f->v << 10 |
		       (uint32_t)f3[f->op] << 7 | OPC_VX;
	}
	case OP_VEXT:
	case OP_VRED:
		return (uint32_t)f->sub << 27 | (uint32_t)f->rs1 << 22 |
		       (uint32_t)f->v << 10 |
		       (uint32_t)(f->op == OP_VEXT ? VX_VEXT : VX_VRED) << 7 |
		       OPC_VX;
	}
	return 0;
}
