/*
 * vigil.h - the public API of the vigil counting runtime (libvigil).
 *
 * Programs built with -finstrument-functions and linked with libvigil are
 * counted without calling anything here: every call edge is counted in the
 * profile file from the first call on.  These functions are for programs
 * that want control over when windows are cut and where counts go.
 *
 * Environment:
 *   VIGIL_FILE      path pattern of the profile: %p pid, %h host name,
 *                   %e executable name, %t start time (seconds since the
 *                   epoch), %% a percent sign.  Default: vigil.%e.%p.vgl
 *                   in the current directory.
 *   VIGIL_INTERVAL  a duration (250ms, 1s, 2m): also write a window
 *                   snapshot every DURATION, each holding the counts of its
 *                   window, next to the profile as NAME.wNNNNNN.vgl.
 *
 * All functions return 0 or a negative errno and never end the program.
 */
#ifndef VIGIL_H
#define VIGIL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Write a window snapshot now: the counts since the last snapshot. */
int vigil_snapshot(void);

/* Set every count to zero.  Other threads' counts are not locked: a call
 * another thread counts at the same instant may land either side of the
 * reset, and may even carry its edge's old count past it.  Reset while the
 * program is quiet for exact windows. */
int vigil_reset(void);

/* Finish the current profile file and count into a new one at path (a
 * pattern, as VIGIL_FILE) from now on.  Call it while no other thread runs
 * instrumented code: an increment in flight may land in either file. */
int vigil_set_file(const char *path);

#ifdef __cplusplus
}
#endif

#endif
