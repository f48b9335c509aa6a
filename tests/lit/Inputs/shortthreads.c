/* shortthreads.c - N threads one after another, each calling f once. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
volatile long sink;
__attribute__((noinline)) void f(void) { sink++; }
__attribute__((noinline)) void *worker(void *a) { f(); return a; }
int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	for (int i = 0; i < n; i++) { pthread_t t; pthread_create(&t, NULL, worker, NULL); pthread_join(t, NULL); }
	printf("threads %d\n", n); return 0; }
