# axpy.s: scale the payload and add a resident vector, out = a x + y.
#
# Payload: x, L float32 (L <= 16384, so at most 64 KiB).
# Emits:   L float32, out[i] = fmaf(a, x[i], y[i]).
# Memory:  bank 1: y, 16384 float32 at offset 0, and a (float32) at
#          offset 65536.
#
# Assembled for a one-VPE machine: it emits as many bytes as came in.
# (On n VPEs each VPE p computes a_p x + y_p from its own bank and
# stream_out interleaves them, but packet_length still keeps the first L
# values only.) The payload goes through in chunks of 128 elements, which
# stay in the L1-sized register group v16..v23: load y's chunk, fuse in
# a x from stream_in, stream the chunk out (the loader fuses the three
# into one pass, and on one VPE the whole loop, doc/cgra-isa.md §10).
# The last chunk may be short; its tail holds y and is cut off by
# packet_length. A chunk of 128 wastes at
# most 127 elements of work on that tail, and a 1500-byte packet is
# three chunks.

	lui x6, 0x10			# 65536: where a is
	vsetivli x0, 1, e32, m1
	vle32.v v0, (x6)		# v0[0] = a
	vsetivli x0, 128, e32, m8
	addi x7, x0, 0			# byte offset of the chunk in y
	addi x8, x0, 512		# 128 elements
loop:
	vle32.v v16, (x7)		# y[chunk]
	vmacc.vx v16, x0, sin		# += v0[x0 = 0] * x[chunk], fused
	streamout.v v16
	add x7, x7, x8
	csrrw x5, sin_left, x0
	bne x5, x0, loop
	csrrw x5, packet_length, x0	# the incoming length (x0: no write)
	csrrw x0, packet_length, x5	# becomes the outgoing length
	wfi
