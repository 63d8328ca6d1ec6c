# pagerank_mac.s: the op of allgather_op (doc/fused.md), PageRank's
# multiply-accumulate: with x gathered from every rank's block, this
# rank's row of the link matrix times x.
#
# Stream:  rank, size, inbound bytes, N * 4 (words), then x, N float32.
# Inbound: a, the rank's row: N float32 (N at most 4096, 16 KiB).
# Emits:   one float32, the fused multiply-adds a[j] * x[j] over j in
#          increasing order, from 0.0.
#
# Chunks of 256 elements: the row's chunk from bank 1 into v256..v511,
# then vmacc.xv takes the stream's 256 words (fewer in the last chunk:
# the positions past the stream add nothing).

	csrrw x5, sin_word, x0		# rank
	csrrw x5, sin_word, x0		# size
	csrrw x5, sin_word, x0		# inbound bytes
	csrrw x5, sin_word, x0		# N * 4
	vsetivli x0, 1, e32, m1
	addi x11, x0, 0			# v0: the sum (x11 is an index, 0)
	addi x12, x0, 0
	vxor v0, x12			# 0.0 (a register operand needs x1..x31)
	vsetivli x0, 256, e32, m16
	addi x7, x0, 0			# byte offset of the chunk in a
	addi x8, x0, 1024
	csrrw x5, sin_left, x0
	bne x5, x0, chunk
	bne x0, x8, done		# no x: the sum is 0.0
chunk:
	vle32.v v256, (x7)
	vmacc.xv x11, v256, sin		# v0[0] = fma(x[j], a[j], v0[0])
	add x7, x7, x8
	csrrw x5, sin_left, x0
	bne x5, x0, chunk
done:
	vsetivli x0, 1, e32, m1
	streamout.v v0
	wfi
