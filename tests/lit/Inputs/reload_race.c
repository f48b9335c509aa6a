/*
 * reload_race.c - a plugin dlclosed by one thread while another loads
 * the next one into the place just freed and calls it, before the first
 * thread's dlclose has returned.
 *
 * A worker thread loads argv[1] and calls its alpha_entry 3 times
 * through call_it; the main thread then dlcloses it.  The plugins have a
 * destructor that makes a call, which goes through the hook while the
 * dlclose is under way, before the unmap.  Between the loader's dlclose
 * and the return of the program's (reload_shim.so, LD_PRELOADed, calls
 * reload_after_unmap), the worker loads argv[2] and calls its beta_entry
 * 5 times, through the same load() and call_it call sites as before: in
 * its own table every edge of beta has the addresses of one of alpha.
 * Prints whether the two loads shared a base address.
 */
#define _GNU_SOURCE /* dlinfo */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

#include "reload_load.h"

static const char *paths[2];
static void *handle;
static uintptr_t base[2];
static long sum;
static sem_t loaded, go, done;
static volatile int nplugins = 2; /* one loop, one copy of its sites */

static void *worker(void *arg)
{
	static const char *const names[2] = { "alpha_entry", "beta_entry" };
	static const int calls[2] = { 3, 5 };
	entry_fn f;
	int i, k;

	(void)arg;
	for (k = 0; k < nplugins; k++) {
		if (k)
			sem_wait(&go);
		if (!(handle = load(paths[k], RTLD_NOW, &base[k])) ||
		    !(f = (entry_fn)dlsym(handle, names[k])))
			return NULL;
		for (i = 0; i < calls[k]; i++)
			sum += call_it(f, i);
		sem_post(k ? &done : &loaded);
	}
	return NULL;
}

/* Called by reload_shim.so's dlclose after the loader's; not counted
 * itself (a new edge would take the slow path, which purges anyway). */
__attribute__((no_instrument_function)) void reload_after_unmap(void)
{
	sem_post(&go);
	sem_wait(&done);
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 3)
		return 2;
	paths[0] = argv[1];
	paths[1] = argv[2];
	sem_init(&loaded, 0, 0);
	sem_init(&go, 0, 0);
	sem_init(&done, 0, 0);
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	sem_wait(&loaded);
	if (dlclose(handle))
		return 1;
	pthread_join(t, NULL);
	printf("same base: %s\n", base[0] == base[1] ? "yes" : "no");
	printf("sum %ld\n", sum);
	return 0;
}
