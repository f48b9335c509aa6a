/*
 * profile-head.c - the lines that open what show, report and wait print
 * of a file: its name, and its state (a merge's: how its processes
 * ended).
 */
#include <stdio.h>

#include "profile-head.h"
#include "text.h"

/*
 * The PROCESSES line of a merge: "merged: 403 processes of this program
 * (exit statuses: 0 (400), 2 (3); cut short: 1)", exit statuses with how
 * many processes ended so, then those cut short and those still running
 * when merged.
 */
static void print_merged(const struct vgl_reader *r)
{
	uint64_t cut = 0, running = 0;
	const char *sep = " (";
	size_t i;
	int statuses = 0;

	printf("merged: %llu process%s of this program",
	       (unsigned long long)r->processes, r->processes == 1 ? "" : "es");
	for (i = 0; i < r->nendings; i++) {
		const struct vgl_ending *e = &r->endings[i];

		if (e->state == VGL_STATE_CUT_SHORT)
			cut += e->processes;
		else if (e->state == VGL_STATE_RUNNING)
			running += e->processes;
		else {
			printf("%s%s%d (%llu)", sep,
			       statuses++ ? "" : "exit statuses: ",
			       e->exit_status,
			       (unsigned long long)e->processes);
			sep = ", ";
		}
	}
	if (statuses)
		sep = "; ";
	if (cut) {
		printf("%scut short: %llu", sep, (unsigned long long)cut);
		sep = "; ";
	}
	if (running) {
		printf("%srunning: %llu", sep, (unsigned long long)running);
		sep = "; ";
	}
	printf("%s\n", sep[0] == ' ' ? "" : ")");
}

/* The state line of a file, as show and report print it: a merge's state
 * is its processes' (all finished, or some cut short), and their exit
 * statuses are on the merged line after it (one process's exit would
 * stand for all). */
void print_state(const struct vgl_reader *r)
{
	char buf[128];

	if (r->has_processes) {
		printf("state: %s\n", vgl_liveness_name(r->liveness));
		print_merged(r);
	} else {
		printf("state: %s\n", vgl_reader_state(r, buf, sizeof(buf)));
	}
}

void print_file(const char *path)
{
	fputs("file: ", stdout);
	vgl_text_line(stdout, path);
	putchar('\n');
}
