# gcn_os.s: GCN aggregation Y = A X, output stationary (spvacc.xv).
#
# Sizes (assembled in): N = 4096 nodes, F = n features = n VPEs (16 by
# default), row blocks of R = 64 rows, k tiles of Tk = 512 columns
# (T = 8 tiles), chunks of D = 8 column indices.
#
# Memory:  bank p + 1 holds feature p of every node, X[0..N-1][p] as N
#          float32 at offset 0, and R zeros (float32) at offset 16384.
# Payload: one packet per (row block, k tile) that has nonzeros, row
#          blocks in order and within a block tiles in increasing order;
#          a block with no nonzeros at all still sends one packet, for
#          tile T - 1. 32-bit little-endian words:
#            t       the k tile, 0..T-1
#            last    1 on the block's last packet, else 0
#            chunks  until the end: r (row within the block, 0..R-1),
#                    then D global column indices of nonzeros of that
#                    row in tile t, ascending, padded with 0xffffffff
#          A row with more than D nonzeros in the tile takes several
#          chunks.
# Emits:   on the last packet of a block, its R rows of Y, row-major:
#          R x n float32 (element r, then VPE p: row r, feature p);
#          nothing on the others.
#
# Output stationary: the block's accumulators stay in v0..v3 (element r
# = row r) while the k tiles stream past; spvacc.xv adds, for the row r
# in x4, X[c] over the chunk's columns c, in order, skipping the padding
# (an index >= VLMAX = 4096 contributes nothing). X sits in v256..v511 of
# each VPE from the first packet on (x30 remembers it).
#
# Idle tiles: each packet writes its tile to the tile CSR, which counts
# the tiles it moves past; after the block's last packet the handler
# moves it to T (counting the trailing idle tiles) and back to -1 for the
# next block. So the skip counter ends at B x T minus the packets sent.

	bne x30, x0, ready
	vsetivli x0, 4096, e32, m256
	vle32.v v256, (x0)		# X[.][p] into VPE p's v256..v511
	addi x30, x0, 1
ready:
	csrrw x5, sin_word, x0		# t
	csrrw x0, tile, x5		# idle-tile control
	csrrw x7, sin_word, x0		# last
	vsetivli x0, 8, e32, m256	# D indices; VLMAX 4096 bounds them
	csrrw x8, sin_left, x0
	bne x8, x0, chunk
	bne x7, x0, emit		# a block's only, empty packet
	wfi
chunk:
	csrrw x4, sin_word, x0		# r
	spvacc.xv x4, v256, sin		# v0[r] += X[c] over the chunk
	csrrw x8, sin_left, x0
	bne x8, x0, chunk
	bne x7, x0, emit
	wfi
emit:
	vsetivli x0, 64, e32, m4
	streamout.v v0			# the block's R rows
	lui x6, 0x4			# 16384: the zeros
	vle32.v v0, (x6)		# clear the accumulators
	addi x9, x0, 8
	csrrw x0, tile, x9		# count the tiles after the last packet
	addi x9, x0, -1
	csrrw x0, tile, x9		# the next block starts before tile 0
	wfi
