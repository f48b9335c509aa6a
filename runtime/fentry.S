/*
 * fentry.S - __fentry__: count one call edge from the first instruction of
 * a function built with -pg -mfentry (x86-64, GCC and Clang).
 *
 * The compiler calls it before the function's prologue, from every
 * emitted function and never from an inlined copy, so it sees real calls
 * only.  At its entry (%rsp) is R, the return address into the callee
 * (the callee's start + 5, or + 9 after an endbr64), and 8(%rsp) is the
 * call site, the return address into the caller: what the enter hook of
 * -finstrument-functions gets as call_site.
 *
 * Every argument register is live here (rdi rsi rdx rcx r8 r9, xmm0-7
 * with their ymm/zmm upper halves, %al of a variadic call), so the fast
 * path uses r10 and r11 only.  r11 is the register the ABI leaves free at
 * a call.  r10 is GCC's static chain of a nested function, but GCC saves
 * it itself around the call (push %r10; call __fentry__; pop %r10), as
 * glibc's own __fentry__ (gprof) relies on; Clang has no nested functions.
 * Nor does a caller keep a value in either across the call: GCC's
 * -fipa-ra, which would where it sees a callee leave them alone, is off
 * under -p (tests/lit/entry/ipa-ra.test), and Clang's IPRA is off by
 * default.
 *
 * The fast path: this thread's entry table (thread.h, "entry tables"),
 * open addressing over 32-byte entries {R, site, edge record, 0}, keyed on
 * the raw return addresses so that no callee start is computed per call;
 * the slow path stores the true start in the edge record, which is the
 * same record, in the same file, that the enter hook counts into.  The
 * table's byte mask and base (its distance from the TLS block, see below)
 * are two words of TLS (the mask read first: a signal handler that grows
 * the table between the two reads leaves a smaller mask over a larger
 * table), the home slot is bits 4 and up of (R ^ site * K) & mask (see
 * below), as many instructions as R + 8 site, which clustered: with 500
 * sites that call 400 functions each (tests/lit/hostile/many-edges.test)
 * many keys had the same sum, and the test timed out.
 * An empty entry (key 0) sends the call to the slow path; a purged one
 * (key 1) is probed past; at the entry after the last (key 2) a probe
 * reads the base from TLS again and goes on from the first.  The entry
 * after home is compared right after home, before home is looked at for
 * empty or the next one for the wrap: a used entry is never emptied, so no
 * key lies past an empty home, and the wrap's key matches no R.  A hit
 * there costs 2 instructions more than one at home, not 9 (Lua's
 * bench.lua: 11% of its calls).  Past it, 7 instructions per entry.
 *
 * The exported __fentry__ jumps through vgl_fentry_fn, which starts at
 * the early stub (instrumented IFUNC resolvers run before TLS can be read:
 * see hooks.c) and goes to the check stub when the loader binds a new
 * object to the enter hook (its IFUNC resolver, in hooks.c) or a dlclose
 * is under way: the check drops unloaded objects' edges from both hooks'
 * tables.  A dynamic program's own calls (__wrap___fentry__) skip that
 * jump: see below.
 *
 * Every stub has call frame information (.cfi_*), so that an unwinder
 * (vigil's sampler, perf --call-graph dwarf, gdb) steps out of the hook
 * into the function it entered, whose first instruction called it, and
 * on to that function's caller: without it, the samples that found a
 * program in the hook (58% of the demo's, 30% of Lua's) were stacks of
 * their own with no caller (issue 31.7).  The fast path never moves
 * %rsp: its frame is a leaf's at entry, the default rule.
 *
 * The slow stubs save every argument register and the vector state a
 * caller may keep across a call (XSAVE of x87, SSE, AVX and the upper
 * halves of zmm0-15, as the CPU has them, or FXSAVE without XSAVE) before
 * calling C: libc's AVX string functions in the slow path would clobber
 * ymm upper halves.  Not the opmask registers nor zmm16-31: no argument
 * is passed there and no caller keeps a value there across a call (the
 * ABI's caller-saved registers, in the Microsoft ABI too); leaving them
 * out makes the area 1,664 bytes, not 2,688, for small signal stacks
 * (issue 28, point 12).  They call C with a 16-byte aligned stack, and
 * restore everything before returning into the callee's first
 * instruction after the call.
 */

#define ENT_SIZE 32
#define KEY_EMPTY 0
#define KEY_WRAP 2
#define EDGE_COUNT 16   /* offsetof(struct vgl_edge, count) */
/* XSAVE of components 0, 1, 2 and 6 (x87, SSE, AVX, ZMM_Hi256) writes
 * the standard format's first 1,664 bytes at most. */
#define XSAVE_COMPONENTS 0x47
#define SAVE_AREA 1664
/* What save_call needs below its pushes: the save area, its alignment,
 * and the slow path's C, which the inline mode's hook needs as well (on
 * a sigaltstack, its handler needed 256 bytes more than the plain
 * build's, measured with entry/altstack.test's program; the slow path's
 * C took about 350 of them). */
#define STACK_NEED (SAVE_AREA + 64 + 512)
#define SYS_sigaltstack 131
#define SS_ONSTACK 1

	.text

/*
 * Every shared object's calls (through the exported __fentry__) land
 * here, and a -static program's.  Unlike the enter hook,
 * __fentry__ is no IFUNC: shared objects take it through their GOT
 * (call *__fentry__@GOTPCREL(%rip)), bound while the loader relocates
 * them, and glibc refuses to start a program whose libraries bind to an
 * IFUNC of the executable before the executable is relocated.  So the
 * loader does not tell the runtime when it binds a new object to this
 * hook (see docs/entry-mode-runtime.md for what that costs).
 */
	/* Shared objects' calls, and a -static program's (linked without
	 * --wrap=__fentry__: its IFUNC resolvers run before TLS exists). */
	.globl __fentry__
	.type __fentry__, @function
	.p2align 4
__fentry__:
	.cfi_startproc
	jmp *vgl_fentry_fn(%rip)
	.cfi_endproc
	.size __fentry__, .-__fentry__

	/* For `vigil check` of a stripped program: the distance from
	 * __fentry__ (which stays in the dynamic symbol table, exported)
	 * to __wrap___fentry__ (gone with .symtab), where the program's own
	 * calls go.  Both are here, so the assembler writes the number. */
	.pushsection .vigil.fentry, "a", @progbits
	.balign 8
	.quad __wrap___fentry__ - __fentry__
	.popsection

/*
 * Entries are addressed from the thread pointer, %fs-relative: the TLS
 * block's base word is half the table's distance from the block (thread.h,
 * struct rt_ent_tls), and the mask a home's half-offset, so that the home
 * is bits 4 and up of the hash, with 32-byte entries: the address is
 * twice the sum.  In the archive (linked into executables) the block's
 * own offset is a constant, the displacement of every entry's operand,
 * and r11 is half the entry's offset from the block (STEP a half entry);
 * in libvigil.so the block's offset is read from the GOT, and r11 holds
 * the entry's whole offset from the thread pointer.  The wrap (BASE)
 * leaves r10 holding R.
 *
 * Why bits 4 and up (issue 28, point 15): with bits 5 and up, two
 * callees 16 bytes apart called from one site shared a home, so one
 * site's calls of many small functions filled one run of entries (two
 * keys to a home, in order), which every new edge's miss probed to its
 * end: 20,000 such edges took the fast path 10,339 instructions each
 * (callgrind), and a SIGALRM handler that siglongjmps every 20 us
 * interrupted the probes before the slow path, again and again: the
 * program took 63 s where it takes 0.3, or hung.  Callees at least 16
 * bytes apart now have homes of their own.  The same instructions: the
 * doubling is the addressing mode's (lea in libvigil.so, for its add).
 */
#ifdef VGL_RT_SHARED
#define ENT(off) %fs:off(%r11)
#define STEP ENT_SIZE
#define BASE(reg) \
	mov vgl_ent_tls@gottpoff(%rip), reg; \
	mov %fs:8(reg), %r10; \
	lea (reg,%r10,2), reg; \
	mov (%rsp), %r10
#else
#define ENT(off) %fs:vgl_ent_tls@tpoff+off(%r11,%r11,1)
#define STEP (ENT_SIZE / 2)
#define BASE(reg) mov %fs:vgl_ent_tls@tpoff+8, reg
#endif

	.globl vgl_fentry_hot
	.hidden vgl_fentry_hot
	.type vgl_fentry_hot, @function
	.globl __wrap___fentry__
	.type __wrap___fentry__, @function
	.p2align 4
vgl_fentry_hot:
	.cfi_startproc
/*
 * A dynamic program's own calls (--wrap=__fentry__) come here directly,
 * with no jump through vgl_fentry_fn (Lua's bench.lua: 1.42x of plain in
 * CPU with the jump, 1.38x without).  They can: in a dynamic program TLS
 * exists from the first instruction, all zero until the loader
 * initialises it, which sends a call to the slow path (struct
 * rt_ent_tls); and the program's calls need no check after an unload,
 * since their callee is in the executable and the runtime's dlclose
 * purges what an unloaded object left before it returns.
 */
__wrap___fentry__:
#ifdef VGL_RT_SHARED
	imul $0x68e31da5, 8(%rsp), %r10
	xor (%rsp), %r10
	mov vgl_ent_tls@gottpoff(%rip), %r11
	and %fs:(%r11), %r10
	add %fs:8(%r11), %r10
	lea (%r11,%r10,2), %r11
	mov (%rsp), %r10
#else
	mov (%rsp), %r10
	imul $0x68e31da5, 8(%rsp), %r11
	xor %r10, %r11
	and %fs:vgl_ent_tls@tpoff, %r11
	add %fs:vgl_ent_tls@tpoff+8, %r11
#endif
	/* The home entry. */
	cmp %r10, ENT(0)
	jne .Lsecond
.Lsite:
	mov 8(%rsp), %r10
	cmp %r10, ENT(8)
	jne .Lsitemiss
	mov ENT(16), %r11
	addq $1, EDGE_COUNT(%r11)
	ret
	/* The entry after home, whatever home holds: an entry is never
	 * emptied, so with home empty no key is there either, and the entry
	 * after the last is the wrap, whose key matches no R. */
.Lsecond:
	cmp %r10, ENT(ENT_SIZE)
	jne .Lpast
	mov 8(%rsp), %r10
	cmp %r10, ENT(ENT_SIZE+8)
	jne .Lsitemiss          /* on from home, as from a miss there */
	mov ENT(ENT_SIZE+16), %r11
	addq $1, EDGE_COUNT(%r11)
	ret
	/* Neither: home empty means no such key; else on from the entry
	 * after home, known not to match (or, if it is the wrap, from the
	 * first). */
.Lpast:
	cmpq $KEY_EMPTY, ENT(0)
	je .Lslow
	add $STEP, %r11
	cmpq $KEY_WRAP, ENT(0)
	jne .Lmiss
	BASE(%r11)
	jmp .Lprobe
.Lsitemiss:
	mov (%rsp), %r10
	/* r11 is an entry that does not match, r10 is R: an empty one ends
	 * the probe, a wrap leads to the first (the base read again: a
	 * signal handler may have grown the table since; its first entry is
	 * as good a place to go on from as the old one's). */
.Lmiss:
	cmpq $KEY_EMPTY, ENT(0)
	je .Lslow
	add $STEP, %r11
	cmpq $KEY_WRAP, ENT(0)
	jne .Lprobe
	BASE(%r11)
.Lprobe:
	cmp %r10, ENT(0)
	jne .Lmiss
	jmp .Lsite
.Lslow:
	lea hook_slow_fentry(%rip), %r11
	jmp save_call
	.cfi_endproc
	.size vgl_fentry_hot, .-vgl_fentry_hot
	.size __wrap___fentry__, .-__wrap___fentry__

/* Before TLS is usable, and after the loader bound a new object. */
	.globl vgl_fentry_early
	.hidden vgl_fentry_early
	.type vgl_fentry_early, @function
vgl_fentry_early:
	.cfi_startproc
	lea hook_fentry_early(%rip), %r11
	jmp save_call
	.cfi_endproc
	.size vgl_fentry_early, .-vgl_fentry_early

	.globl vgl_fentry_check
	.hidden vgl_fentry_check
	.type vgl_fentry_check, @function
vgl_fentry_check:
	.cfi_startproc
	lea hook_fentry_check(%rip), %r11
	jmp save_call
	.cfi_endproc
	.size vgl_fentry_check, .-vgl_fentry_check

/*
 * Calls the C function in r11 as fn(R, site) with every argument register
 * and the vector state saved.  The XSAVE mask (XCR0 & XSAVE_COMPONENTS) is
 * found once, by CPUID and XGETBV here (C might touch a vector register
 * first), and kept in vgl_xsave_mask with bit 31 set; its low bits 0 mean
 * FXSAVE.
 */
	.type save_call, @function
save_call:
	.cfi_startproc
	push %rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -16
	mov %rsp, %rbp
	.cfi_def_cfa_register %rbp
	push %rax
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %r8
	push %r9
	push %r10
	push %rbx               /* CPUID writes it */
	/*
	 * On a signal stack (sigaltstack) too small for STACK_NEED more, the
	 * call is counted as lost, not made: the save area is 3 KiB that the
	 * inline mode's hook never needs, and a handler on a stack that fits
	 * the plain and inline builds died of SIGSEGV here (issue 28, point
	 * 12).  One system call per slow call, none on the fast path.
	 * rax, rcx and r11 are the syscall's (the first two saved above).
	 */
	push %r11
	sub $24, %rsp           /* a stack_t: ss_sp, ss_flags, ss_size */
	mov $SYS_sigaltstack, %eax
	xor %edi, %edi
	mov %rsp, %rsi
	syscall
	mov -80(%rbp), %r11
	test %rax, %rax
	jnz 7f
	testl $SS_ONSTACK, 8(%rsp)
	jz 7f
	mov %rsp, %rax
	sub (%rsp), %rax        /* room: from ss_sp up to here */
	cmp $STACK_NEED, %rax
	jae 7f
	and $-16, %rsp
	call hook_short_stack
	jmp 6f
7:	sub $SAVE_AREA, %rsp
	and $-64, %rsp
	mov vgl_xsave_mask(%rip), %eax
	test %eax, %eax
	jnz 2f
	mov $1, %eax
	cpuid
	mov $0x80000000, %eax
	bt $27, %ecx            /* OSXSAVE: the OS enabled XSAVE */
	jnc 1f
	xor %ecx, %ecx
	xgetbv
	and $XSAVE_COMPONENTS, %eax
	or $0x80000000, %eax
1:	mov %eax, vgl_xsave_mask(%rip)
2:	and $0x7fffffff, %eax
	jz 3f
	xor %edx, %edx
	/* XRSTOR faults on a header that is not zero where XSAVE leaves it. */
	movq $0, 512(%rsp)
	movq $0, 520(%rsp)
	movq $0, 528(%rsp)
	movq $0, 536(%rsp)
	movq $0, 544(%rsp)
	movq $0, 552(%rsp)
	movq $0, 560(%rsp)
	movq $0, 568(%rsp)
	xsave (%rsp)
	jmp 4f
3:	fxsave (%rsp)
4:	mov 8(%rbp), %rdi
	mov 16(%rbp), %rsi
	call *%r11
	mov vgl_xsave_mask(%rip), %eax
	and $0x7fffffff, %eax
	jz 5f
	xor %edx, %edx
	xrstor (%rsp)
	jmp 6f
5:	fxrstor (%rsp)
6:	lea -72(%rbp), %rsp
	pop %rbx
	pop %r10
	pop %r9
	pop %r8
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rax
	pop %rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size save_call, .-save_call

	.data
	.p2align 2
	.hidden vgl_xsave_mask
	.globl vgl_xsave_mask
vgl_xsave_mask:
	.long 0

	.section .note.GNU-stack, "", @progbits
