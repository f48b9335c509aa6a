/*
 * ondemand.h - whether an ondemand program's counting is off (ondemand.c,
 * in libvigil.a only, and only linked into ondemand executables: the
 * weak reference is NULL everywhere else).
 */
#ifndef VGL_RT_ONDEMAND_H
#define VGL_RT_ONDEMAND_H

/* 1 when VIGIL_FILE is not set (or in secure-execution mode): the sites
 * were made idle before main, and the runtime writes no profile. */
int ondemand_idle(void) __attribute__((weak));

#endif
