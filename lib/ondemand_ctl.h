/*
 * ondemand_ctl.h - the one place where an ondemand program's runtime and
 * `vigil attach` meet for the live switch (docs/ondemand.md, "Switched on
 * live"): a block in the runtime's data, in a section of its own so that
 * the outside finds it from the executable's section headers (stripped or
 * not, static or dynamic), read and written with process_vm_readv and
 * process_vm_writev.
 *
 * The runtime writes everything but `want`; the outside writes `want`
 * only.  Every field is read as hostile by the outside (the target is any
 * process its user may trace).
 */
#ifndef VGL_ONDEMAND_CTL_H
#define VGL_ONDEMAND_CTL_H

#include <stdint.h>

#define VGL_OD_SECTION ".vigil.ondemand"
#define VGL_OD_MAGIC "vglond1"          /* with its NUL, 8 bytes */
#define VGL_OD_LISTS 256

/* The bytes of a site: idle and on differ in one byte only (at
 * `vgl_od_form.at`), so that one single-byte store switches it. */
struct vgl_od_form {
	unsigned char len;      /* the whole instruction: 5 or 6 */
	unsigned char at;       /* the byte that changes */
	unsigned char on;       /* its value in the call */
	unsigned char idle;     /* its value while idle */
	unsigned char lead;     /* byte 0 when at == 1 (the prefix) */
};

/*
 * The three calls GCC and the linker make at a site, and their idle twins:
 *   e8 rel32        call          a9 rel32        test $imm32, %eax
 *   67 e8 rel32     addr32 call   67 a9 rel32     addr32 test $imm32, %eax
 *   ff 15 rel32     call *(rip)   85 15 rel32     test %edx, rel32(%rip)
 * Each idle twin is one instruction of the same length that writes the
 * flags only (dead at a function's first instruction: a call clobbers them
 * too), the last reading the GOT slot the call would have read.
 */
static const struct vgl_od_form vgl_od_forms[3] = {
	{ 5, 0, 0xe8, 0xa9, 0 },
	{ 6, 1, 0xe8, 0xa9, 0x67 },
	{ 6, 0, 0xff, 0x85, 0 },
};

/* The form of the bytes p (at least 2 readable), on or idle (*on says
 * which), or NULL: not a site. */
static inline const struct vgl_od_form *vgl_od_form_of(const unsigned char *p,
							int *on)
{
	if (p[0] == 0x67 && (p[1] == 0xe8 || p[1] == 0xa9)) {
		*on = p[1] == 0xe8;
		return &vgl_od_forms[1];
	}
	if ((p[0] == 0xff || p[0] == 0x85) && p[1] == 0x15) {
		*on = p[0] == 0xff;
		return &vgl_od_forms[2];
	}
	if (p[0] == 0xe8 || p[0] == 0xa9) {
		*on = p[0] == 0xe8;
		return &vgl_od_forms[0];
	}
	return 0;
}

struct vgl_od_ctl {
	char magic[8];                /* VGL_OD_MAGIC */
	uint32_t size;                /* sizeof(struct vgl_od_ctl) */
	uint32_t idle;                /* 1: started idle (no VIGIL_FILE) */
	uint32_t want;                /* the outside's: 1 counting asked for */
	int32_t fd;                   /* the memfd counted into; -1 none yet */
	uint64_t dev, ino;            /* its identity (fstat) */
	uint32_t nlists;              /* lists[] filled, in order */
	uint32_t pad;
	uint64_t lists[VGL_OD_LISTS][2]; /* [start, stop) of each object's
	                                  * site list (__mcount_loc, 8-byte
	                                  * addresses), as relocated */
};

#endif
