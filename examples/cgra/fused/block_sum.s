# block_sum.s: an accumulation op (doc/fused.md), for scatter_op_reduce
# (the master-slave pattern: the root's blocks scattered, each summed in
# the switch, the sums reduced to the root) and allreduce_op.
#
# Stream:  rank, size, inbound bytes, L (words), then L bytes of int32.
# Inbound: none used.
# Emits:   one int32, the sum of the block's elements mod 2^32.
#
# 128 lanes take the stream 128 words at a time (the last chunk may be
# short: its missing words leave their lanes as they are), then
# vredsum.i32 adds the lanes.

	csrrw x5, sin_word, x0		# rank
	csrrw x5, sin_word, x0		# size
	csrrw x5, sin_word, x0		# inbound bytes
	csrrw x5, sin_word, x0		# L
	vsetivli x0, 128, e32, m8
	addi x11, x0, 128		# the lanes: v8..v15 (element 128)
	vxor v8, x11			# = 0
loop:
	vadd.i32 v8, sin		# lanes += the next 128 words
	csrrw x5, sin_left, x0
	bne x5, x0, loop
	vredsum.i32 x0, v8		# element 0 (v0's first) = the sum
	vsetivli x0, 1, e32, m1
	streamout.v v0
	wfi
