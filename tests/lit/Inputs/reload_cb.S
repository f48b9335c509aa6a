/*
 * reload_cb.S - a plugin function NAME(x) that returns exe_cb(x), a
 * function of the program that loads it.  Not instrumented, and the same
 * bytes whatever NAME is: two plugins built from this with names of the
 * same length, loaded at the same address, call exe_cb from the very
 * same call site.
 */
	.text
	.globl NAME
	.type NAME, @function
NAME:
	sub $8, %rsp
	call exe_cb@PLT
	add $8, %rsp
	ret
	.size NAME, .-NAME
	.section .note.GNU-stack, "", @progbits
