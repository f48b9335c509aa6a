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
 *
 * Two runs may share DIR (two CI jobs, a build step that runs `vigil run`
 * itself), so nothing of one may be taken by the other.  The processes of
 * a run write into a directory of its own, DIR/running.XXXXXX (mkdtemp),
 * which no other run lists: a run merges exactly its own tree's
 * processes, whatever their pids, and no run removes another's files.
 * Telling the runs' files apart by pid and start time in one shared
 * directory was the other way; it needs a /proc lookup per file and still
 * guesses when a pid is reused, where a directory of one's own cannot be
 * wrong.  The merged profiles go to DIR itself, each under a name claimed
 * for the run: the name is the run's if no file has it, or the file there
 * is one this run found when it started (an earlier run's, replaced as
 * before); a file that appeared or changed since was written by another
 * run, and this run takes NAME.1.vgl (NAME.2.vgl, ...) instead and says
 * so.  The check and the first write happen under flock() on DIR, so two
 * runs never both see a name free.  What is left in the private directory
 * at the end (files kept or not merged) is moved into DIR; the profiles of
 * processes still running stay where their writers have them open.
 *
 * A process of the tree may run as another user (root's `make check` runs
 * a test under setpriv --reuid=nobody): it must be able to make its file,
 * and no one outside the tree may write there (issue 28.7).  So the
 * processes write into DIR/running.XXXXXX/SECRET/, SECRET 128 random bits
 * and the directory mode 1733 (anyone who knows the name may make a
 * file, no one may list it, or remove or replace another's file), while
 * running.XXXXXX is ours and 0711: it cannot be listed, so the name is
 * known only from VIGIL_FILE, which the tree's processes inherit (and
 * /proc/PID/environ shows to the same user alone).  A descriptor of the
 * directory passed down instead would not do: creating a file in a
 * directory checks its mode whatever way it was reached, and the runtime
 * opens the file again by name to grow it, after a program may have
 * closed every descriptor.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "outfile.h"
#include "proc-ended.h"
#include "procid.h"
#include "run-merge.h"
#include "vgl_merge.h"
#include "message.h"
#include "clock.h"

/* A sorted set of file names. */
struct names {
	char **v;
	size_t n, cap;
};

/* A file of DIR when the run started, as it was then. */
struct old_file {
	char *name;
	dev_t dev;
	ino_t ino;
	struct timespec ctime;
};

/* A group's name (vgl_merge_name) and the file name claimed for it. */
struct claim {
	char *group, *file;
};

struct run_merge {
	char *outdir;           /* DIR: the merged profiles */
	char *top;              /* DIR/running.XXXXXX */
	char *dir;              /* top/SECRET: the per-process profiles */
	int keep;
	int dirfd;              /* DIR, for the claims' flock; -1 if none */
	struct old_file *old;   /* DIR's .vgl files at the start, by name */
	size_t nold;
	struct claim *claims;
	size_t nclaims;
	struct vgl_merge m;
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

	if (!d)
		return;
	/* The runtime's rule (procid.h): never a file in progress of a
	 * writer in another pid namespace or on another host. */
	while ((e = readdir(d)))
		vgl_leftover_remove(dirfd(d), e->d_name, 0);
	closedir(d);
}

static int cmp_old(const void *a, const void *b)
{
	return strcmp(((const struct old_file *)a)->name,
		      ((const struct old_file *)b)->name);
}

/* Notes DIR's .vgl files as they are now (see the top of the file). */
static void note_old(struct run_merge *rm)
{
	struct names now = { NULL, 0, 0 };
	struct stat st;
	size_t i;

	list_dir(rm->outdir, &now);
	rm->old = calloc(now.n ? now.n : 1, sizeof(*rm->old));
	for (i = 0; rm->old && i < now.n; i++) {
		if (fstatat(rm->dirfd, now.v[i], &st, AT_SYMLINK_NOFOLLOW))
			continue;   /* gone, or no dirfd: taken() says "not old" */
		rm->old[rm->nold].name = now.v[i];
		now.v[i] = NULL;
		rm->old[rm->nold].dev = st.st_dev;
		rm->old[rm->nold].ino = st.st_ino;
		rm->old[rm->nold].ctime = st.st_ctim;
		rm->nold++;
	}
	names_free(&now);   /* free(NULL) for the names moved */
	if (rm->nold)
		qsort(rm->old, rm->nold, sizeof(*rm->old), cmp_old);
}

/* Makes the drop directory top/SECRET (see the top of the file) into
 * *dir.  Returns 0 or -errno (nothing left in top). */
static int make_drop(const char *top, char **dir)
{
	unsigned char rnd[16];
	char hex[33];
	size_t i;

	*dir = NULL;
	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -EIO;
	for (i = 0; i < sizeof(rnd); i++)
		snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
	if (asprintf(dir, "%s/%s", top, hex) < 0) {
		*dir = NULL;
		return -ENOMEM;
	}
	/* chmod after mkdir: the umask would take the others' bits. */
	if (chmod(top, 0711) || mkdir(*dir, 0700) ||
	    chmod(*dir, 01733)) {
		int err = -errno;

		rmdir(*dir);
		free(*dir);
		*dir = NULL;
		return err;
	}
	return 0;
}

int run_merge_start(struct run_merge **out, const char *dir, int keep)
{
	struct run_merge *rm = calloc(1, sizeof(*rm));
	char tmpl[4096];
	int err;

	*out = NULL;
	if (!rm || !(rm->outdir = strdup(dir))) {
		free(rm);
		return -ENOMEM;
	}
	rm->dirfd = -1;
	if (join(tmpl, sizeof(tmpl), dir, "running.XXXXXX")) {
		err = -ENAMETOOLONG;
		goto fail;
	}
	/* Also the check that DIR can hold profiles at all, before CMD
	 * starts: not a directory, not writable, read-only, full. */
	if (!mkdtemp(tmpl)) {
		err = -errno;
		goto fail;
	}
	if (!(rm->top = strdup(tmpl))) {
		rmdir(tmpl);
		err = -ENOMEM;
		goto fail;
	}
	if ((err = make_drop(rm->top, &rm->dir))) {
		rmdir(tmpl);
		free(rm->top);
		goto fail;
	}
	rm->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rm->keep = keep;
	vgl_merge_init(&rm->m);
	rm->m.by_path = 1;
	rm->m.keep_apart = 1;
	note_old(rm);
	rm->saved_ns = vgl_clock_ns(CLOCK_MONOTONIC);
	*out = rm;
	return 0;
fail:
	free(rm->outdir);
	free(rm);
	return err;
}

const char *run_merge_dir(const struct run_merge *rm)
{
	return rm->dir;
}

/*
 * Whether name in DIR is another's: claimed by this run for another group,
 * or a file that is not the one that was there when this run started.
 */
static int taken(const struct run_merge *rm, const char *name)
{
	struct old_file key, *o;
	struct stat st;
	size_t i;

	for (i = 0; i < rm->nclaims; i++)
		if (!strcmp(rm->claims[i].file, name))
			return 1;
	if (fstatat(rm->dirfd >= 0 ? rm->dirfd : AT_FDCWD, name, &st,
		    AT_SYMLINK_NOFOLLOW))
		return errno != ENOENT;
	key.name = (char *)name;
	o = rm->nold ? bsearch(&key, rm->old, rm->nold, sizeof(*rm->old),
			       cmp_old) : NULL;
	return !o || o->dev != st.st_dev || o->ino != st.st_ino ||
	       o->ctime.tv_sec != st.st_ctim.tv_sec ||
	       o->ctime.tv_nsec != st.st_ctim.tv_nsec;
}

/*
 * The file name in DIR for the group named group: the one claimed
 * before, or a new claim (group itself when it is free, else
 * STEM.N.vgl), said on stderr when it is not group.  Called under the
 * lock on DIR.  NULL when out of memory.
 */
static const char *claim(struct run_merge *rm, const char *group)
{
	char name[1100];
	struct claim *c;
	size_t i, stem = strlen(group);
	unsigned k;

	for (i = 0; i < rm->nclaims; i++)
		if (!strcmp(rm->claims[i].group, group))
			return rm->claims[i].file;
	if (stem > 4 && !strcmp(group + stem - 4, ".vgl"))
		stem -= 4;
	snprintf(name, sizeof(name), "%s", group);
	for (k = 1; taken(rm, name) && k < 10000; k++)
		snprintf(name, sizeof(name), "%.*s.%u.vgl", (int)stem, group,
			 k);
	c = realloc(rm->claims, (rm->nclaims + 1) * sizeof(*c));
	if (!c)
		return NULL;
	rm->claims = c;
	c += rm->nclaims;
	c->group = strdup(group);
	c->file = strdup(name);
	if (!c->group || !c->file) {
		free(c->group);
		free(c->file);
		return NULL;
	}
	rm->nclaims++;
	if (strcmp(name, group))
		vgl_say("vigil run: %s/%s was written by another vigil "
			"run meanwhile; this run's goes to %s/%s",
			rm->outdir, group, rm->outdir, name);
	return c->file;
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

	if (names_has(&rm->seen, name) ||
	    join(path, sizeof(path), rm->dir, name))
		return 0;
	outfile_note_input(path);
	if (vgl_reader_open_flags(&r, path, VGL_READ_UNSORTED)) {
		if (complain) {
			vgl_say("vigil: %s: %s (not merged)", path,
				r.err);
			rm->bad++;
		}
		return 0;
	}
	ended = r.liveness == VGL_LIVENESS_FINISHED ||
		r.liveness == VGL_LIVENESS_CUT_SHORT;
	if (!final || ended || r.meta.kind == VGL_KIND_WINDOW) {
		if (vgl_merge_add(&rm->m, &r, path)) {
			vgl_error("%s (not merged)", rm->m.err);
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
 * Writes each group of m into dir, as DIR/NAME (and its windows, when
 * asked), NAME claimed in rm when rm is given (see claim()), and adds the
 * names written to *written.  Returns 0 or -1 after saying why.
 */
static int write_groups(struct run_merge *rm, struct vgl_merge *m,
			const char *dir, int windows, struct names *written)
{
	char path[4096], name[1024];
	const char *file;
	size_t i, nwin;
	int err, ret = 0, locked;

	/* Claims and first writes of two runs one after the other. */
	locked = rm && rm->dirfd >= 0 && !flock(rm->dirfd, LOCK_EX);
	for (i = 0; i < m->ngroups; i++) {
		vgl_merge_name(m, i, name, sizeof(name));
		file = rm ? claim(rm, name) : name;
		err = !file ? -ENOMEM
			: join(path, sizeof(path), dir, file) ? -ENAMETOOLONG
			: vgl_merge_write(m, i, path);
		if (err) {
			vgl_error("%s: cannot write: %s", path,
				outfile_strerror(err));
			ret = -1;
			continue;
		}
		names_add(written, file);
		if (windows && vgl_merge_write_windows(m, i, path, &nwin)) {
			vgl_error("%s", m->err);
			ret = -1;
		}
	}
	if (locked)
		flock(rm->dirfd, LOCK_UN);
	return ret;
}

/*
 * Writes every program's merged profile (and, at the end, its windows)
 * into DIR.  A name given out before and not now (a second build of a
 * program made both take build-id suffixes) is removed.  Returns 0 or -1
 * after saying why.
 */
static int save(struct run_merge *rm, int windows)
{
	struct names now = { NULL, 0, 0 };
	char path[4096], name[1024];
	const char *file;
	size_t i;
	int ret;

	ret = write_groups(rm, &rm->m, rm->outdir, windows, &now);
	/* The names of all groups, written or not: none is stale. */
	for (i = 0; i < rm->m.ngroups; i++) {
		vgl_merge_name(&rm->m, i, name, sizeof(name));
		if ((file = claim(rm, name)))
			names_add(&now, file);
	}
	for (i = 0; i < rm->outs.n; i++)
		if (!names_has(&now, rm->outs.v[i]) &&
		    !join(path, sizeof(path), rm->outdir, rm->outs.v[i]))
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
		if (!join(path, sizeof(path), rm->dir, rm->unsaved.v[i]))
			unlink(path);
	names_free(&rm->unsaved);
}

void run_merge_poll(struct run_merge *rm)
{
	struct names now = { NULL, 0, 0 };
	uint64_t pid;
	size_t i;

	list_dir(rm->dir, &now);
	for (i = 0; i < now.n; i++) {
		/* Windows wait for the end; so do names without a pid. */
		if (window_prefix(now.v[i]) || !(pid = name_pid(now.v[i])) ||
		    names_has(&rm->seen, now.v[i]))
			continue;
		if (!proc_ended((pid_t)pid))
			continue;   /* its writer may still be counting */
		add_file(rm, now.v[i], 1, 0);
	}
	names_free(&now);
	/* Each write rewrites every merged profile: at most a tenth of the
	 * time goes to it, however large they grow. */
	if (rm->unsaved.n &&
	    vgl_clock_ns(CLOCK_MONOTONIC) - rm->saved_ns >= 1000000000ull &&
	    vgl_clock_ns(CLOCK_MONOTONIC) - rm->saved_ns >= 10 * rm->save_cost_ns) {
		uint64_t t0 = vgl_clock_ns(CLOCK_MONOTONIC);

		if (!save(rm, 0))
			remove_saved(rm);
		rm->saved_ns = vgl_clock_ns(CLOCK_MONOTONIC);
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
	/* Of processes that wrote into DIR itself (VIGIL_FILE set by hand,
	 * or a vigil before runs had directories of their own). */
	clean_leftovers(rm->outdir);
	list_dir(rm->dir, &now);
	for (i = 0; i < now.n; i++)
		add_file(rm, now.v[i], 0, 1);
	/* The window snapshots, read again and merged by time. */
	nwin = vgl_merge_plan_windows(&rm->m);
	for (i = 0; i < nwin; i++) {
		const char *w = vgl_merge_window_name(&rm->m, i);
		struct vgl_reader r;

		if (vgl_reader_open_flags(&r, w, VGL_READ_UNSORTED)) {
			vgl_say("vigil: %s: %s (not merged)", w,
				r.err);
			rm->bad++;
			continue;
		}
		if (vgl_merge_add_window(&rm->m, i, &r))
			vgl_error("%s (not merged)", rm->m.err);
		else
			names_add(&wins, strrchr(w, '/') + 1);
		vgl_reader_close(&r);
	}
	vgl_merge_by_path_warning(&rm->m);
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
	if (!rm->m.inputs && !rm->bad) {
		/* "0 programs, 0 processes" alone leaves the user guessing. */
		vgl_say("vigil run: no profiles: no process of CMD's "
			"tree was built with vigil (pkg-config --cflags "
			"--libs vigil)");
	} else {
		vgl_merge_summary(&rm->m, rm->bad, summary, sizeof(summary));
		extra = strstr(summary, " calls");
		/* "N programs, P processes": each process writes one
		 * profile. */
		vgl_say("vigil run: %zu program%s, %zu process%s, "
			"%llu calls%s -> %s/", rm->m.ngroups,
			rm->m.ngroups == 1 ? "" : "s", rm->m.inputs,
			rm->m.inputs == 1 ? "" : "es",
			(unsigned long long)vgl_merge_calls(&rm->m),
			extra ? extra + 6 : "", rm->outdir);
	}
	vgl_merge_release(&rm->m);
	names_free(&now);
	names_free(&wins);
	return ret;
}

/* Whether the process that writes dir's file name (NAME.PID.vgl, or a
 * window of it) is still running, or still ending: the reader's liveness,
 * vgl_writer_alive()'s one answer, which goes by the writer's lock before
 * its pid (the pid in the name is its pid namespace's: a program of the
 * tree that runs in one of its own, a container, writes NAME.1.vgl).  A
 * finished profile whose pid was given out again (a long run: a `make
 * check` of thousands of processes, pid_max 32768) is not running.  A
 * file that cannot be read goes by the pid in its name, as it can. */
static int writer_running(struct run_merge *rm, const char *name)
{
	char buf[1100], path[4096];
	size_t n = window_prefix(name);
	struct vgl_reader r;
	uint64_t pid;
	int running, err;

	if (n && snprintf(buf, sizeof(buf), "%.*s.vgl", (int)n, name) <
		 (int)sizeof(buf))
		name = buf;
	if (join(path, sizeof(path), rm->dir, name))
		return 1;   /* cannot tell: leave it where its writer has it */
	err = vgl_reader_open_flags(&r, path, VGL_READ_UNSORTED);
	if (err) {
		pid = name_pid(name);
		return err != -ENOENT && pid && !proc_ended((pid_t)pid);
	}
	running = r.liveness == VGL_LIVENESS_RUNNING ||
		  r.liveness == VGL_LIVENESS_EXITING;
	vgl_reader_close(&r);
	return running;
}

void run_merge_free(struct run_merge *rm)
{
	struct names now = { NULL, 0, 0 };
	char from[4096], to[4096];
	size_t i, running = 0, taken_there = 0;

	if (!rm)
		return;
	/* What is left of ended processes (kept, or not merged) goes to DIR,
	 * never over a file there; a running writer's file stays where it
	 * has it open (the runtime opens it again by name to grow it). */
	clean_leftovers(rm->dir);
	list_dir(rm->dir, &now);
	for (i = 0; i < now.n; i++) {
		if (join(from, sizeof(from), rm->dir, now.v[i]) ||
		    join(to, sizeof(to), rm->outdir, now.v[i]))
			continue;
		if (writer_running(rm, now.v[i]))
			running++;
		else if (syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to,
				 1u /* RENAME_NOREPLACE */))
			taken_there++;
	}
	if (running)
		vgl_say("vigil run: %zu profile%s of processes still "
			"running stay%s in %s/", running,
			running == 1 ? "" : "s", running == 1 ? "s" : "",
			rm->dir);
	if (taken_there)
		vgl_warning("%zu file%s not moved into "
			"%s/ (the name is taken there) stay%s in %s/",
			taken_there, taken_there == 1 ? "" : "s", rm->outdir,
			taken_there == 1 ? "s" : "", rm->dir);
	if (!running && !taken_there &&
	    ((rmdir(rm->dir) && errno != ENOENT) ||
	     (rmdir(rm->top) && errno != ENOENT)))
		vgl_error("%s: cannot remove: %s", rm->dir,
			strerror(errno));
	names_free(&now);
	for (i = 0; i < rm->nold; i++)
		free(rm->old[i].name);
	free(rm->old);
	for (i = 0; i < rm->nclaims; i++) {
		free(rm->claims[i].group);
		free(rm->claims[i].file);
	}
	free(rm->claims);
	if (rm->dirfd >= 0)
		close(rm->dirfd);
	names_free(&rm->seen);
	names_free(&rm->unsaved);
	names_free(&rm->done);
	names_free(&rm->outs);
	free(rm->dir);
	free(rm->top);
	free(rm->outdir);
	free(rm);
}

int run_merge_samples(struct run_merge *rm, const char *sdir,
		      char *const *names, size_t nnames, const char *dir)

{
	struct names now = { NULL, 0, 0 }, written = { NULL, 0, 0 };
	struct vgl_merge m;
	char path[4096];
	size_t i, n;
	int ret;

	vgl_merge_init(&m);
	m.keep_apart = 1;
	/* Only this run's: DIR/samples may be shared with another run. */
	for (i = 0; i < nnames; i++)
		names_add(&now, names[i]);
	for (i = 0; i < now.n; i++) {
		struct vgl_reader r;

		if (join(path, sizeof(path), sdir, now.v[i]))
			continue;
		outfile_note_input(path);
		if (vgl_reader_open_flags(&r, path, VGL_READ_UNSORTED)) {
			vgl_error("%s: %s (not merged)", path,
				r.err);
			continue;
		}
		if (vgl_merge_add(&m, &r, path))
			vgl_error("%s (not merged)", m.err);
		vgl_reader_close(&r);
	}
	ret = write_groups(rm, &m, dir, 0, &written);
	n = written.n;
	if (n)
		vgl_say("vigil run: the stacks of %zu program%s -> "
			"%s/*.sampled.vgl", n, n == 1 ? "" : "s", dir);
	vgl_merge_release(&m);
	names_free(&now);
	names_free(&written);
	return ret;
}
