/*
 * run-merge.c - what `vigil run` does with the profiles its tree writes
 * into DIR: one merged profile per program (see run-merge.h).
 *
 * Merging waits for no one: while CMD runs, each poll adds the profiles
 * of processes that have ended (a profile is final once its writer is
 * gone), and about once a second (less often when the merged profiles are
 * large: at most a tenth of the time is spent writing them) writes the
 * merged profiles so far and removes the per-process files they now hold.  Removing a file is not
 * free (about 2 ms each on an ext4 mounted with `discard`, seen here), and
 * a build of a thousand short processes left a second of it for the end,
 * when a harness waits; spread over the run it costs the run nothing on a
 * second core.  A per-process file is removed only once a merged profile
 * that holds it is on disk: a full disk never loses counts.
 *
 * What is left when the tree has ended (the last processes' profiles, the
 * files whose names tell no pid, window snapshots, which are merged by
 * time and need all of theirs at once) is merged by run_merge_finish.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procid.h"
#include "run-merge.h"
#include "vgl_merge.h"
#include "vigil.h"

/* A sorted set of file names. */
struct names {
	char **v;
	size_t n, cap;
};

struct run_merge {
	char *dir;
	int keep;
	struct vgl_merge m;
	struct names old;       /* there before CMD ran: not ours */
	struct names seen;      /* added to the merge */
	struct names unsaved;   /* added since the last write; still there */
	struct names done;      /* profiles of ended processes: removed */
	struct names outs;      /* merged profiles written */
	size_t bad;
	uint64_t saved_ns;      /* when the merged profiles were written */
	uint64_t save_cost_ns;  /* how long that took */
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int names_has(const struct names *s, const char *name)
{
	return s->n && bsearch(&name, s->v, s->n, sizeof(*s->v), cmp_name);
}

/* Adds name in order (no copy is added twice). */
static void names_add(struct names *s, const char *name)
{
	size_t lo = 0, hi = s->n;
	char *c;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int r = strcmp(s->v[mid], name);

		if (!r)
			return;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		char **v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return;
		s->v = v;
		s->cap = cap;
	}
	if (!(c = strdup(name)))
		return;
	memmove(s->v + lo + 1, s->v + lo, (s->n - lo) * sizeof(*s->v));
	s->v[lo] = c;
	s->n++;
}

static void names_free(struct names *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* dir/name in buf; names too long for it are not ours (-1). */
static int join(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int is_vgl(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && !strcmp(name + n - 4, ".vgl");
}

/* The length of PREFIX when name is PREFIX.wNNNNNN.vgl (a window), or 0. */
static size_t window_prefix(const char *name)
{
	size_t n = strlen(name), i;

	if (n < 13 || strcmp(name + n - 4, ".vgl") || name[n - 12] != '.' ||
	    name[n - 11] != 'w')
		return 0;
	for (i = n - 10; i < n - 4; i++)
		if (name[i] < '0' || name[i] > '9')
			return 0;
	return n - 12;
}

/* The pid of NAME.PID.vgl (how VIGIL_FILE=DIR/%e.%p.vgl names), or 0. */
static uint64_t name_pid(const char *name)
{
	size_t n = strlen(name), i = n - 4;
	uint64_t pid = 0, mul = 1;

	if (!is_vgl(name))
		return 0;
	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9' &&
	       mul <= 1000000000ull) {
		pid += (uint64_t)(name[i - 1] - '0') * mul;
		mul *= 10;
		i--;
	}
	return i > 0 && i < n - 4 && name[i - 1] == '.' ? pid : 0;
}

static void list_dir(const char *dir, struct names *s)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (is_vgl(e->d_name))
			names_add(s, e->d_name);
	closedir(d);
}

/*
 * Removes the temporary files of processes that are gone (killed while
 * creating a profile or writing a window) from dir: the runtime of a
 * later run looks at a directory's first entries only.
 */
static void clean_leftovers(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	uint64_t pid, start;
	char state;

	if (!d)
		return;
	while ((e = readdir(d))) {
		pid = vgl_leftover_pid(e->d_name);
		if (pid && vgl_proc_stat(pid, &start, &state) == -ENOENT)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

int run_merge_start(struct run_merge **out, const char *dir, int keep)
{
	struct run_merge *rm = calloc(1, sizeof(*rm));

	*out = NULL;
	if (!rm || !(rm->dir = strdup(dir))) {
		free(rm);
		return -ENOMEM;
	}
	rm->keep = keep;
	vgl_merge_init(&rm->m);
	rm->m.by_path = 1;
	rm->m.keep_apart = 1;
	list_dir(dir, &rm->old);
	rm->saved_ns = vigil_now_ns();
	*out = rm;
	return 0;
}

/*
 * Adds the profile dir/name unless it is not ours or not final yet;
 * final: only when its writer is gone.  Returns 1 when added.  complain:
 * say why a file cannot be read (at the end; a poll tries again later).
 */
static int add_file(struct run_merge *rm, const char *name, int final,
		    int complain)
{
	struct vgl_reader r;
	char path[4096];
	int added = 0, ended;

	if (names_has(&rm->old, name) || names_has(&rm->seen, name) ||
	    names_has(&rm->outs, name) ||
	    join(path, sizeof(path), rm->dir, name))
		return 0;
	if (vgl_reader_open_flags(&r, path, VGL_READ_UNSORTED)) {
		if (complain) {
			fprintf(stderr, "vigil: %s: %s (not merged)\n", path,
				r.err);
			rm->bad++;
		}
		return 0;
	}
	ended = r.liveness == VGL_LIVENESS_FINISHED ||
		r.liveness == VGL_LIVENESS_CUT_SHORT;
	if (!final || ended || r.meta.kind == VGL_KIND_WINDOW) {
		if (vgl_merge_add(&rm->m, &r, path)) {
			fprintf(stderr, "vigil: %s (not merged)\n", rm->m.err);
		} else {
			added = 1;
			names_add(&rm->seen, name);
			if (r.meta.kind == VGL_KIND_LIVE && ended) {
				names_add(&rm->done, name);
				names_add(&rm->unsaved, name);
			}
		}
	}
	vgl_reader_close(&r);
	return added;
}

/*
 * Writes every program's merged profile (and, at the end, its windows)
 * into dir.  A name given out before and not now (a second build of a
 * program made both take build-id suffixes) is removed.  Returns 0 or -1
 * after saying why.
 */
/*
 * Writes each group of m into dir, as DIR/NAME (and its windows, when
 * asked), and adds the names written to *written.  Returns 0 or -1 after
 * saying why.
 */
static int write_groups(struct vgl_merge *m, const char *dir, int windows,
			struct names *written)
{
	char path[4096], name[1024];
	size_t i, nwin;
	int err, ret = 0;

	for (i = 0; i < m->ngroups; i++) {
		vgl_merge_name(m, i, name, sizeof(name));
		err = join(path, sizeof(path), dir, name) ? -ENAMETOOLONG
			: vgl_merge_write(m, i, path);
		if (err) {
			fprintf(stderr, "vigil: %s: cannot write: %s\n", path,
				strerror(-err));
			ret = -1;
			continue;
		}
		names_add(written, name);
		if (windows && vgl_merge_write_windows(m, i, path, &nwin)) {
			fprintf(stderr, "vigil: %s\n", m->err);
			ret = -1;
		}
	}
	return ret;
}

static int save(struct run_merge *rm, int windows)
{
	struct names now = { NULL, 0, 0 };
	char path[4096], name[1024];
	size_t i;
	int ret;

	ret = write_groups(&rm->m, rm->dir, windows, &now);
	/* The names of all groups, written or not: none is stale. */
	for (i = 0; i < rm->m.ngroups; i++) {
		vgl_merge_name(&rm->m, i, name, sizeof(name));
		names_add(&now, name);
	}
	for (i = 0; i < rm->outs.n; i++)
		if (!names_has(&now, rm->outs.v[i]) &&
		    !join(path, sizeof(path), rm->dir, rm->outs.v[i]))
			unlink(path);
	names_free(&rm->outs);
	rm->outs = now;
	return ret;
}

/* Removes the per-process files merged profiles on disk now hold. */
static void remove_saved(struct run_merge *rm)
{
	char path[4096];
	size_t i;

	for (i = 0; !rm->keep && i < rm->unsaved.n; i++)
		if (!names_has(&rm->outs, rm->unsaved.v[i]) &&
		    !join(path, sizeof(path), rm->dir, rm->unsaved.v[i]))
			unlink(path);
	names_free(&rm->unsaved);
}

void run_merge_poll(struct run_merge *rm)
{
	struct names now = { NULL, 0, 0 };
	uint64_t pid, start;
	size_t i;
	char state;

	list_dir(rm->dir, &now);
	for (i = 0; i < now.n; i++) {
		/* Windows wait for the end; so do names without a pid. */
		if (window_prefix(now.v[i]) || !(pid = name_pid(now.v[i])) ||
		    names_has(&rm->seen, now.v[i]) ||
		    names_has(&rm->old, now.v[i]) ||
		    names_has(&rm->outs, now.v[i]))
			continue;
		if (vgl_proc_stat(pid, &start, &state) == 0 && state != 'Z')
			continue;   /* its writer may still be counting */
		add_file(rm, now.v[i], 1, 0);
	}
	names_free(&now);
	/* Each write rewrites every merged profile: at most a tenth of the
	 * time goes to it, however large they grow. */
	if (rm->unsaved.n &&
	    vigil_now_ns() - rm->saved_ns >= 1000000000ull &&
	    vigil_now_ns() - rm->saved_ns >= 10 * rm->save_cost_ns) {
		uint64_t t0 = vigil_now_ns();

		if (!save(rm, 0))
			remove_saved(rm);
		rm->saved_ns = vigil_now_ns();
		rm->save_cost_ns = rm->saved_ns - t0;
	}
}

int run_merge_finish(struct run_merge *rm)
{
	struct names now = { NULL, 0, 0 }, wins = { NULL, 0, 0 };
	char path[4096], name[1024], summary[512], *extra;
	size_t i, nwin;
	int ret;

	clean_leftovers(rm->dir);
	list_dir(rm->dir, &now);
	for (i = 0; i < now.n; i++)
		add_file(rm, now.v[i], 0, 1);
	/* The window snapshots, read again and merged by time. */
	nwin = vgl_merge_plan_windows(&rm->m);
	for (i = 0; i < nwin; i++) {
		const char *w = vgl_merge_window_name(&rm->m, i);
		struct vgl_reader r;

		if (vgl_reader_open_flags(&r, w, VGL_READ_UNSORTED)) {
			fprintf(stderr, "vigil: %s: %s (not merged)\n", w,
				r.err);
			rm->bad++;
			continue;
		}
		if (vgl_merge_add_window(&rm->m, i, &r))
			fprintf(stderr, "vigil: %s (not merged)\n", rm->m.err);
		else
			names_add(&wins, strrchr(w, '/') + 1);
		vgl_reader_close(&r);
	}
	merge_by_path_warning(&rm->m);
	ret = save(rm, 1);
	if (!ret) {
		remove_saved(rm);
		/* A window goes with its profile: PREFIX.wNNNNNN.vgl with
		 * PREFIX.vgl, once that one is merged and removed. */
		for (i = 0; !rm->keep && i < wins.n; i++) {
			size_t n = window_prefix(wins.v[i]);

			if (snprintf(name, sizeof(name), "%.*s.vgl", (int)n,
				     wins.v[i]) < (int)sizeof(name) &&
			    names_has(&rm->done, name) &&
			    !join(path, sizeof(path), rm->dir, wins.v[i]))
				unlink(path);
		}
	}
	merge_summary(&rm->m, rm->bad, summary, sizeof(summary));
	extra = strstr(summary, " calls");
	/* "N programs, P processes": each process writes one profile. */
	fprintf(stderr, "vigil run: %zu program%s, %zu process%s, "
		"%llu calls%s -> %s/\n", rm->m.ngroups,
		rm->m.ngroups == 1 ? "" : "s", rm->m.inputs,
		rm->m.inputs == 1 ? "" : "es",
		(unsigned long long)vgl_merge_calls(&rm->m),
		extra ? extra + 6 : "", rm->dir);
	vgl_merge_release(&rm->m);
	names_free(&now);
	names_free(&wins);
	names_free(&rm->old);
	names_free(&rm->seen);
	names_free(&rm->unsaved);
	names_free(&rm->done);
	names_free(&rm->outs);
	free(rm->dir);
	free(rm);
	return ret;
}

int run_merge_samples(const char *sdir, const char *dir)
{
	struct names now = { NULL, 0, 0 }, written = { NULL, 0, 0 };
	struct vgl_merge m;
	char path[4096];
	size_t i, n;
	int ret;

	vgl_merge_init(&m);
	m.keep_apart = 1;
	list_dir(sdir, &now);
	for (i = 0; i < now.n; i++) {
		struct vgl_reader r;

		if (join(path, sizeof(path), sdir, now.v[i]))
			continue;
		if (vgl_reader_open_flags(&r, path, VGL_READ_UNSORTED)) {
			fprintf(stderr, "vigil: %s: %s (not merged)\n", path,
				r.err);
			continue;
		}
		if (vgl_merge_add(&m, &r, path))
			fprintf(stderr, "vigil: %s (not merged)\n", m.err);
		vgl_reader_close(&r);
	}
	ret = write_groups(&m, dir, 0, &written);
	n = written.n;
	if (n)
		fprintf(stderr, "vigil run: the stacks of %zu program%s -> "
			"%s/*.sampled.vgl\n", n, n == 1 ? "" : "s", dir);
	vgl_merge_release(&m);
	names_free(&now);
	names_free(&written);
	return ret;
}
