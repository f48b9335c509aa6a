/*
 * ondemand.h - an ondemand program's idle sites and live switch
 * (ondemand.c, in libvigil.a only, and only linked into ondemand
 * executables: the weak references are NULL everywhere else).
 */
#ifndef VGL_RT_ONDEMAND_H
#define VGL_RT_ONDEMAND_H

#include <stdint.h>

/* 1 when VIGIL_FILE is not set (or in secure-execution mode): the sites
 * were made idle before main, and the runtime writes no profile. */
int ondemand_idle(void) __attribute__((weak));

/* 1 when `vigil attach` has switched counting on in this idle process:
 * the slow path then moves the counts into a memfd (store_memfd). */
int ondemand_wanted(void) __attribute__((weak));

/* Publishes the memfd counted into (fd -1: none) for the outside. */
void ondemand_took_fd(int fd, uint64_t dev, uint64_t ino)
	__attribute__((weak));

/* In a fork child: the switch was the parent's; the child's copy of the
 * memfd's descriptor is closed and counting is no longer asked for. */
void ondemand_forked(void) __attribute__((weak));

#endif
