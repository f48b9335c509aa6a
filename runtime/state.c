/*
 * state.c - the runtime's process-wide state, vgl_rt (struct rt in
 * rt.h): what every file of the runtime reads and, under vgl_rt.lock,
 * writes.  A floor of the runtime: it calls nothing.
 */
#include "state.h"

struct rt vgl_rt = {
	.fd = -1,
};
