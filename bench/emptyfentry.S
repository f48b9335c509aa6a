/*
 * The floor for entry-only counting: a __fentry__ that does nothing.
 *
 * Linked into the benchmark built with -pg -mfentry given to the compiler
 * proper (variant "floor-entry", vigil-entry-cc.specs).  What remains is
 * the cost the compiler's instrumentation imposes by itself: one call at
 * each function's first instruction and its return.
 */
	.text
	.globl __fentry__
	.type __fentry__, @function
__fentry__:
	ret
	.size __fentry__, .-__fentry__
	.section .note.GNU-stack,"",@progbits
