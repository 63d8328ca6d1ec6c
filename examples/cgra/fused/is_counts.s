# is_counts.s: the op of allreduce_op_alltoall (doc/fused.md), after
# NAS IS's histogram allreduce: how many of this rank's keys fall in
# each group of 64 buckets, so that the alltoall tells every rank how
# many keys each other rank will send it (rank r owns an equal run of
# groups).
#
# Stream:  rank, size, inbound bytes, B * 4 (words), then the global
#          histogram, B int32 (the allreduce's; this op does not need
#          it: NAS IS balances the ranks' bucket ranges by it, which takes
#          a running sum this instruction set has no scan for).
# Own:     this rank's block -- its histogram, B int32, B a multiple of
#          64 (at most 4096, 16 KiB) -- in bank 1 from offset 32768.
# Inbound: none used.
# Emits:   B / 64 int32: group g's count, the sum of buckets 64g..64g+63.

	csrrw x5, sin_word, x0		# rank
	csrrw x5, sin_word, x0		# size
	csrrw x5, sin_word, x0		# inbound bytes
	csrrw x10, sin_word, x0		# B * 4, the own block's bytes too
	lui x7, 0x8			# 32768: the own block in bank 1
	add x10, x10, x7		# where the loop ends
	addi x8, x0, 256		# bytes of a group
	addi x12, x0, 0			# element 0 (v0's first): a count
	addi x16, x0, 1			# (for the jumps: x0 != x16 always)
top:
	bne x7, x10, group
	bne x0, x16, done
group:
	vsetivli x0, 64, e32, m4
	vle32.v v128, (x7)
	vredsum.i32 x12, v128		# the group's 64 buckets
	vsetivli x0, 1, e32, m1
	streamout.v v0
	add x7, x7, x8
	bne x0, x16, top
done:
	wfi
