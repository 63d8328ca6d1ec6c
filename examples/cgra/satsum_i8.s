# satsum_i8.s: a running saturating sum of int8 vectors, kept in the
# switch: each packet's bytes are added to the sum so far, each byte
# clamped to -128..127, and the new sum goes back to the sender.
#
# Payload: L bytes, int8 (L <= 65536).
# Emits:   the L bytes of the sum after this packet.
# Memory:  bank 1: the sum, 65536 bytes at offset 0 (zero to start).
#
# vsadd.i8 (doc/cgra-isa.md §4.1) adds four packed bytes a word. The
# payload goes through in chunks of 512 bytes (128 words in v16..v23):
# load the chunk's sum, add the stream into it, store it back, stream it
# out. In a short last chunk the words past the payload keep their sum
# (an arithmetic instruction leaves them undisturbed), and packet_length
# cuts them from the output. Saturating adds are commutative but not
# associative: the sum depends on the order the packets come in.

	vsetivli x0, 128, e32, m8
	addi x7, x0, 0			# byte offset of the chunk in the sum
	addi x8, x0, 512
loop:
	vle32.v v16, (x7)		# the sum so far
	vsadd.i8 v16, sin		# + the payload's chunk, clamped
	vse32.v v16, (x7)		# kept for the next packet
	streamout.v v16
	add x7, x7, x8
	csrrw x5, sin_left, x0
	bne x5, x0, loop
	csrrw x5, packet_length, x0	# the incoming length
	csrrw x0, packet_length, x5	# is the outgoing one
	wfi
