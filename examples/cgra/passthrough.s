# passthrough.s: forward every packet unchanged, through the machine.
#
# Payload: any bytes, any length (not necessarily whole words).
# Emits:   the same bytes.
# Memory:  none.
#
# The program form of pass-through mode (MODE_PASSTHROUGH does the same
# without running anything). streamout.v sin moves VL words of stream_in
# straight to stream_out, a partial last word included, so the data never
# goes through a VRF or an FP unit and keeps every bit.

	vsetivli x0, 16384, e32, m1024	# 16384 words = 64 KiB per step
loop:
	streamout.v sin
	csrrw x5, sin_left, x0		# bytes not forwarded yet
	bne x5, x0, loop
	wfi
