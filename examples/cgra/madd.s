# madd.s: a running multiply-add kept in the switch, acc = a x + acc,
# rounded once (fused), for each packet x; the new acc goes back.
#
# Payload: x, L float32 (L <= 16384).
# Emits:   the L float32 of acc after this packet.
# Memory:  bank 1: acc, 16384 float32 at offset 0; a (float32) at
#          offset 65536.
#
# axpy.s with its sum kept: the resident vector is the accumulator, and
# each chunk is stored back before it is streamed out.

	lui x6, 0x10			# 65536: where a is
	vsetivli x0, 1, e32, m1
	vle32.v v0, (x6)		# v0[0] = a
	vsetivli x0, 128, e32, m8
	addi x7, x0, 0
	addi x8, x0, 512
loop:
	vle32.v v16, (x7)		# acc
	vmacc.vx v16, x0, sin		# += a x, fused
	vse32.v v16, (x7)		# kept
	streamout.v v16
	add x7, x7, x8
	csrrw x5, sin_left, x0
	bne x5, x0, loop
	csrrw x5, packet_length, x0
	csrrw x0, packet_length, x5
	wfi
