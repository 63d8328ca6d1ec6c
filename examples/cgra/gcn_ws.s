# gcn_ws.s: GCN aggregation Y = A X, weight stationary (spvacc.vx).
#
# Sizes (assembled in): N = 4096 nodes, F = n features = n VPEs (16 by
# default), m tiles of Tm = 64 output rows, k tiles of Tk = 512 columns
# (T = 8 tiles), chunks of D = 8 row indices.
#
# Memory:  bank p + 1 holds feature p of every node, X[0..N-1][p] as N
#          float32 at offset 0, and Tm zeros (float32) at offset 16384.
# Payload: one packet per (m tile, k tile) that has nonzeros, m tiles in
#          order and within one k tiles in increasing order; an m tile
#          with no nonzeros at all still sends one packet, for tile
#          T - 1. 32-bit little-endian words:
#            t       the k tile, 0..T-1
#            last    1 on the m tile's last packet, else 0
#            chunks  until the end: j (a column of A in tile t, i.e. a
#                    node whose features are added), then D rows i
#                    (within the m tile, 0..Tm-1) with A[i][j] = 1,
#                    ascending, padded with 0xffffffff; columns in
#                    increasing order
#          A column with more than D nonzeros in the m tile takes
#          several chunks.
# Emits:   on the last packet of an m tile, its Tm rows of Y, row-major:
#          Tm x n float32; nothing on the others.
#
# Weight stationary: X[j] is the operand that stays put while spvacc.vx
# scatters it into the accumulators v256..v259 of the rows i the chunk
# names; the accumulator group has LMUL 4, so VLMAX = 64 = Tm and the
# padding (>= 64) adds nothing. X sits in v0..v255 (v0[j] = X[j][p]) from
# the first packet on. Each row receives its X[j] in increasing j, the
# order of a CSR row, so the result equals A X summed row by row.
# Idle tiles are counted as in gcn_os.s.

	bne x30, x0, ready
	vsetivli x0, 4096, e32, m256
	vle32.v v0, (x0)		# X[.][p] into VPE p's v0..v255
	addi x30, x0, 1
ready:
	csrrw x5, sin_word, x0		# t
	csrrw x0, tile, x5		# idle-tile control
	csrrw x7, sin_word, x0		# last
	vsetivli x0, 8, e32, m4		# D rows; VLMAX 64 bounds them
	csrrw x8, sin_left, x0
	bne x8, x0, chunk
	bne x7, x0, emit		# an m tile's only, empty packet
	wfi
chunk:
	csrrw x4, sin_word, x0		# j
	spvacc.vx v256, sin, x4		# v256[i] += v0[j] for the chunk's i
	csrrw x8, sin_left, x0
	bne x8, x0, chunk
	bne x7, x0, emit
	wfi
emit:
	vsetivli x0, 64, e32, m4
	streamout.v v256		# the m tile's Tm rows
	lui x6, 0x4			# 16384: the zeros
	vle32.v v256, (x6)		# clear the accumulators
	addi x9, x0, 8
	csrrw x0, tile, x9		# count the tiles after the last packet
	addi x9, x0, -1
	csrrw x0, tile, x9		# the next m tile starts before tile 0
	wfi
