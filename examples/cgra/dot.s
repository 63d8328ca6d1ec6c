# dot.s: dot products of the payload with resident vectors (y = W x).
#
# Payload: x, L float32 (L <= 16384).
# Emits:   n float32, one per VPE: y[p] = sum over i < L of x[i] * w_p[i],
#          accumulated with fused multiply-adds in increasing i.
# Memory:  bank p + 1 (VPE p's own bank): w_p, 16384 float32 at offset 0
#          (only the first L are used), and 0.0f at offset 65536.
#
# With one VPE this is a dot product; with n VPEs a matrix-vector product
# of an n x L matrix held row p in bank p + 1. W is loaded into the VRFs
# by the first packet and stays there: x30 remembers it, since registers
# persist from packet to packet.

	bne x30, x0, ready
	vsetivli x0, 16384, e32, m1024
	vle32.v v1024, (x0)		# w_p into VPE p's v1024..v2047
	addi x30, x0, 1
ready:
	vsetivli x0, 1, e32, m1
	lui x6, 0x10			# 65536: the 0.0f of each bank
	vle32.v v0, (x6)		# v0[0] = 0, the accumulator
	vsetivli x0, 16384, e32, m1024
	vmacc.xv x0, v1024, sin		# v0[x0 = 0] += x[i] * w_p[i], i < L
	vsetivli x0, 1, e32, m1
	streamout.v v0			# y[0] .. y[n-1]
	wfi
