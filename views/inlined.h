/*
 * inlined.h - where the inlined copies of a sampled profile ran: the
 * functions each was inlined into (its hosts), as the views of calls
 * beside time name them (inlined.c).  A copy has samples and no calls
 * of its own (a copy makes no call; the entry mode counts real calls
 * only), so those views give its hosts' calls instead of a 0 that reads
 * as "never called".
 */
#ifndef VIGIL_INLINED_H
#define VIGIL_INLINED_H

#include <stddef.h>
#include <stdint.h>

#include "sprofile.h"

struct inlined_host {
	uint32_t host;          /* sprofile function index */
	uint64_t samples;       /* the stacks with the copy in that host */
};

struct inlined_hosts {
	/* The hosts of function f: v[first[f] .. first[f + 1]), most
	 * samples first, then by label; none for a function that is not
	 * an inlined copy. */
	size_t *first;
	struct inlined_host *v;
};

/* Finds the hosts of sp's inlined copies: on each stack, the next frame
 * out that is not an inlined copy itself.  0 or -ENOMEM (h then holds
 * nothing to release). */
int inlined_hosts_build(struct inlined_hosts *h, const struct vgl_sprofile *sp);
void inlined_hosts_release(struct inlined_hosts *h);

/* The most hosts a note names; the others are counted. */
#define INLINED_NOTE_HOSTS 3

/*
 * "inlined into host_a (3000 calls), host_b (not counted) and 2 more",
 * malloc'd (NULL: no memory): calls[g] is sampled function g's exact
 * calls, 0 when it is not counted (a host ran, so it was called: 0
 * calls means the counting profile does not know it).
 */
char *inlined_note(const struct inlined_hosts *h,
		   const struct vgl_sprofile *sp, uint32_t f,
		   const uint64_t *calls);

#endif
