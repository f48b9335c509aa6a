/*
 * store.h - the profile file and its arenas (store.c).
 */
#ifndef VGL_RT_STORE_H
#define VGL_RT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "state.h"

int store_open(struct rt *rt, const char *pattern);
int store_reopen(struct rt *rt, const char *pattern, int finish_old,
		 uint64_t used);
void store_anonymous(struct rt *rt);
int store_memfd(struct rt *rt);
void *store_alloc_block(struct rt *rt, uint32_t kind, uint32_t owner,
			uint64_t size, const void *payload, size_t len);
void store_zero_counts(struct rt_arena *a);
uint64_t store_sum_counts(struct rt_arena *a);
void store_finish(struct rt *rt, int status);
int store_freeze(struct rt *rt);
uint64_t arena_used(struct rt_arena *a);
struct vgl_block *arena_at(struct rt_arena *a, uint64_t used);
struct vgl_block *arena_next(struct rt_arena *a, struct vgl_block *b,
			     uint64_t used);
/* Creates PATH.PID.N.tmp exclusively, never through a link; returns the
 * descriptor (its name in tmp, RT_PATH_MAX bytes) or -errno. */
int store_create_tmp(const char *path, char *tmp);
/* Removes temporary files that dead processes left in path's directory. */
void store_clean_leftovers(const char *path);

#endif
