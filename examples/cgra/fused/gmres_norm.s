# gmres_norm.s: the op of allreduce_op_allreduce (doc/fused.md), GMRES's
# normalise-and-project step: with R = ||w||^2 from the first allreduce,
# each rank's share of q . v where q = w / ||w||. The second allreduce
# sums the shares.
#
# Stream:  rank, size, inbound bytes, 4 (words), then R (float32).
# Inbound: w and v, n float32 each, laid out in pairs of 128-element
#          chunks: w[0..128) v[0..128) w[128..256) v[128..256) ...; its
#          bytes a multiple of 1024, at least 1024 (n at most 2048 in a
#          16 KiB buffer).
# Emits:   one float32, (sum over j of w[j] * v[j]) / sqrt(R).
#
# The products are summed in 128 lanes (lane k takes elements k, k + 128,
# ...), the lanes by vredsum.f32's fixed tree: the same bits on every run.
# A register operand (vfmul.f32 vd, xN) names its first element: register
# vK's is 16K.

	csrrw x5, sin_word, x0		# rank
	csrrw x5, sin_word, x0		# size
	csrrw x10, sin_word, x0		# inbound bytes: where the loop ends
	csrrw x5, sin_word, x0		# 4: R follows
	vsetivli x0, 128, e32, m8
	addi x11, x0, 512		# the lanes' sums: v32..v39 (element 512)
	vxor v32, x11			# = 0 (each word xor itself)
	addi x12, x0, 128		# a chunk of w: v8..v15 (element 128)
	addi x13, x0, 256		# its chunk of v, then the products: v16..
	addi x7, x0, 0			# byte offset of the pair in bank 1
	addi x8, x0, 512		# bytes of a chunk
	addi x16, x0, 1			# (for the jumps: x0 != x16 always)
top:
	bne x7, x10, pair
	bne x0, x16, done
pair:
	vle32.v v8, (x7)		# w chunk
	add x7, x7, x8
	vle32.v v16, (x7)		# v chunk
	add x7, x7, x8
	vfmul.f32 v16, x12		# v16.. = w * v
	vfadd.f32 v32, x13		# lanes += the products
	bne x0, x16, top
done:
	addi x14, x0, 1
	vredsum.f32 x14, v32		# element 1 (in v0) = the dot product
	vsetivli x0, 1, e32, m1
	vfsqrt.f32 v1, sin		# v1 = sqrt(R)
	vfdiv.f32 v1, x14		# v1 = element 1 / v1
	streamout.v v1
	wfi
