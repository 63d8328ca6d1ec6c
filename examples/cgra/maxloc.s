# maxloc.s: a running MPI_MAXLOC of (value, index) pairs, kept in the
# switch: each packet's pairs meet the best so far, pair by pair, and
# the new best goes back to the sender.
#
# Payload: L/8 pairs, each a float32 value then an int32 index
#          (L <= 65536, a multiple of 8).
# Emits:   the L bytes of the best pairs after this packet.
# Memory:  bank 1: the best pairs, 65536 bytes at offset 0. Start them
#          at (-inf, INT32_MAX), or with the first contribution.
#
# vmaxloc.f32 (doc/cgra-isa.md §4.1) keeps the pair with the larger
# value, the smaller index between equal values, a number over a NaN
# and +0 over -0, so the result is the same bits in whatever order the
# packets come. Chunks of 64 pairs (128 words, v16..v23) as in
# satsum_u8.s; VL is even, as the pairs need.

	vsetivli x0, 128, e32, m8
	addi x7, x0, 0			# byte offset of the chunk
	addi x8, x0, 512
loop:
	vle32.v v16, (x7)		# the best so far
	vmaxloc.f32 v16, sin		# against the payload's pairs
	vse32.v v16, (x7)
	streamout.v v16
	add x7, x7, x8
	csrrw x5, sin_left, x0
	bne x5, x0, loop
	csrrw x5, packet_length, x0
	csrrw x0, packet_length, x5
	wfi
