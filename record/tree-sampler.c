/*
 * tree-sampler.c - one sampler per process of a tree, each process's
 * samples written as `vigil attach -o` writes them, into a sampled .vgl
 * file of its own (see tree-sampler.h).
 *
 * Each file is streamed (attach_vgl_stream): made when sampling starts,
 * committed about every second from the sampler's own thread, made final
 * when the process ends.  Memory so stays flat however long the run
 * (what is kept is one record per distinct stack), and a vigil killed
 * with SIGKILL leaves every file valid, with the samples of its last
 * commit, marked cut short.  Measured, `vigil run --scan stacks
 * --frequency 999 --interval 1ms` of a spinning program: RSS while it
 * ran grew from 9.9 to 14.6 MB in 25 s kept in memory, and stays at 9.0
 * MB streamed; the peak, at the end, when run-merge reads each file whole
 * to merge its stacks, was 18.8 against 14.2 MB after 20 s, 26.9 against
 * 22.3 MB after 40 s.  At the default 1 s interval, 14.1 MB either way
 * after 20 s: 20 sample records are nothing beside the stacks.  A file is named after the program its
 * process runs when sampling starts (its exe, read then, not at the
 * first sample: a process may end before that), and renamed at the end
 * when the process has exec'd another since.
 *
 * The caller finds the processes (cmd-run.c looks every 20 ms while it
 * samples), so a process that lives shorter than that may be missed:
 * sampling is for what runs long enough to matter.  Samplers call back on
 * their own threads, each into its own member; one mutex guards the
 * `ended` flags the caller reads.  A sampler whose process ended is
 * stopped and its file made final on the next update, from the caller's
 * thread (sampler_stop() may not be called from the callback).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "message.h"
#include "attach-vgl.h"
#include "image.h"
#include "procid.h"
#include "sampler.h"
#include "tree-sampler.h"

struct member {
	pid_t pid;
	struct sampler *s;
	struct proc_image *image; /* its maps (image.h): the sampler's and
	                           * av's */
	struct attach_vgl av;   /* its samples and stacks so far */
	pthread_mutex_t av_lock; /* av: the callback's, and the caller's
	                          * while it starts the file */
	char *name;             /* its file in DIR, NAME.PID.vgl, streamed */
	int ended;              /* set by the callback, under t's mutex */
	int exit_known, exit_status;
	unsigned images;        /* images before this one (execs split) */
	struct tree_sampler *t;
};

struct tree_sampler {
	char *dir;
	pthread_mutex_t lock;
	struct sampler_config tmpl;     /* every process's settings */
	struct member **m;
	size_t n;
	size_t processes;
	uint64_t samples;
	size_t files;           /* sampled files written */
	char **written;         /* their names: another run's are not ours
	                         * (under lock: an exec adds one from a
	                         * sampler's thread) */
	char **exes;            /* the exe each names (or NULL) */
	unsigned char *mods;    /* whether each has modules */
	int write_err;          /* the first error writing one, or 0 */
	/* Processes that could not be sampled yet (tried again at each
	 * update: a descriptor freed by an ended sampler may let one in),
	 * and why the first of them could not. */
	pid_t *failed;
	size_t nfailed;
	char first_err[256];
	int first_errno;        /* its -errno */
	int kernel_said;        /* stack_kernel_off told, once per run */
};

/* Notes (ok = 0) or forgets (ok = 1) a pid that could not be sampled,
 * for err (-e). */
static void note_failed(struct tree_sampler *t, pid_t pid, int ok,
			const char *err, int e)
{
	size_t i;
	pid_t *grown;

	for (i = 0; i < t->nfailed && t->failed[i] != pid; i++)
		;
	if (ok) {
		if (i < t->nfailed)
			t->failed[i] = t->failed[--t->nfailed];
		return;
	}
	if (i < t->nfailed)
		return;
	if (!t->first_err[0]) {
		snprintf(t->first_err, sizeof(t->first_err), "%d: %.200s",
			 (int)pid, err);
		t->first_errno = e;
	}
	grown = realloc(t->failed, (t->nfailed + 1) * sizeof(*grown));
	if (!grown)
		return;
	t->failed = grown;
	t->failed[t->nfailed++] = pid;
}

int tree_sampler_start(struct tree_sampler **out, const char *dir,
		       const struct sampler_config *tmpl, char *err,
		       size_t errlen)
{
	struct tree_sampler *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t || !(t->dir = strdup(dir))) {
		free(t);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", dir, strerror(e));
		free(t->dir);
		free(t);
		return -e;
	}
	pthread_mutex_init(&t->lock, NULL);
	t->tmpl = *tmpl;
	*out = t;
	return 0;
}

static void split(struct tree_sampler *t, struct member *m,
		  const struct sampler_sample *s);

static void on_sample(const struct sampler_sample *s, void *arg)
{
	struct member *m = arg;
	struct tree_sampler *t = m->t;

	if (s->kind == SAMPLER_SAMPLE) {
		pthread_mutex_lock(&m->av_lock);
		attach_vgl_sample(&m->av, s);
		if (m->av.exec_split)
			split(t, m, s);
		pthread_mutex_unlock(&m->av_lock);
		pthread_mutex_lock(&t->lock);
		t->samples++;
		if (s->stack_kernel_off && !t->kernel_said) {
			t->kernel_said = 1;
			vgl_warning("stack sampling: %s",
				s->stack_kernel_off);
		}
		pthread_mutex_unlock(&t->lock);
	} else if (s->kind == SAMPLER_MAPS) {
		pthread_mutex_lock(&m->av_lock);
		attach_vgl_maps(&m->av);
		pthread_mutex_unlock(&m->av_lock);
	} else if (s->kind == SAMPLER_ENDED) {
		pthread_mutex_lock(&t->lock);
		m->exit_known = s->exit_known;
		m->exit_status = s->exit_status;
		m->ended = 1;
		pthread_mutex_unlock(&t->lock);
	}
}

/* Whether a file of this run has name (under t's lock). */
static int written_locked(const struct tree_sampler *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->files; i++)
		if (!strcmp(t->written[i], name))
			return 1;
	return 0;
}

/*
 * The name of m's file: NAME.PID.vgl, NAME the base name of the program
 * it runs (of argv[0] when its exe cannot be read), malloc'd.  An image
 * after an exec whose name a file of an earlier image of the process has
 * already (bash that exec'd bash) is NAME.PID.N.vgl, N its number.
 */
static char *file_name(struct tree_sampler *t, const struct member *m)
{
	const struct attach_vgl *av = &m->av;
	const char *exe = av->exe ? av->exe : av->argc ? av->argv[0] : NULL;
	const char *base = exe && strrchr(exe, '/') ? strrchr(exe, '/') + 1
						    : exe;
	char *name;
	int taken;

	if (!base || !*base)
		base = "process";
	if (asprintf(&name, "%s.%d.vgl", base, (int)m->pid) < 0)
		return NULL;
	if (!m->images)
		return name;
	pthread_mutex_lock(&t->lock);
	taken = written_locked(t, name);
	pthread_mutex_unlock(&t->lock);
	if (!taken)
		return name;
	free(name);
	if (asprintf(&name, "%s.%d.%u.vgl", base, (int)m->pid, m->images) < 0)
		return NULL;
	return name;
}

/*
 * Makes m's file of its image final: written (ended, or switched when the
 * image exec'd: attach_vgl_split_init marked it), at DIR/NAME.PID.vgl
 * (NAME: the last program it ran; the streamed file is renamed if it was
 * another), and counted among the run's files.  m->av is left to the
 * caller to release.
 */
static void write_image(struct tree_sampler *t, struct member *m, int ended)
{
	char path[PATH_MAX], final[PATH_MAX];
	char *name;
	int err;

	name = file_name(t, m);
	snprintf(path, sizeof(path), "%s/%s", t->dir,
		 m->name ? m->name : name ? name : "?");
	snprintf(final, sizeof(final), "%s/%s", t->dir, name ? name : "?");
	err = !name ? -ENOMEM
		    : attach_vgl_write(&m->av, path, ended, m->exit_known,
				       m->exit_status);
	if (!err && strcmp(path, final) && rename(path, final))
		err = -errno;
	pthread_mutex_lock(&t->lock);
	if (err && !t->write_err) {
		vgl_error("%s: cannot write the readings: %s",
			final, strerror(-err));
		t->write_err = err;
	} else if (!err) {
		char **grown = realloc(t->written,
				       (t->files + 1) * sizeof(*grown));
		char **exes = realloc(t->exes, (t->files + 1) * sizeof(*exes));
		unsigned char *mods = realloc(t->mods, t->files + 1);

		if (grown)
			t->written = grown;
		if (exes)
			t->exes = exes;
		if (mods)
			t->mods = mods;
		if (grown && exes && mods) {
			grown[t->files] = name;
			name = NULL;
			exes[t->files] = m->av.exe;
			m->av.exe = NULL;
			mods[t->files] = m->av.nmods > 0;
			t->files++;
		}
	}
	pthread_mutex_unlock(&t->lock);
	free(name);
	free(m->name);
	m->name = NULL;
}

/* Frees m, whose sampler is stopped or was never started. */
static void drop(struct member *m)
{
	attach_vgl_release(&m->av);
	proc_image_close(m->image);
	pthread_mutex_destroy(&m->av_lock);
	free(m);
}

/*
 * Stops m's sampler (its last sample delivered), makes its file final
 * (write_image) and frees m.  ended: the process ended; else it runs on
 * (the sampler was stopped at the end of the run).
 */
static void finish(struct tree_sampler *t, struct member *m, int ended)
{
	sampler_stop(m->s);
	/* Its end may have come with the stop's last sample. */
	pthread_mutex_lock(&t->lock);
	ended |= m->ended;
	pthread_mutex_unlock(&t->lock);
	write_image(t, m, ended);
	drop(m);
}

/* Whether pid is gone, or a zombie: its exe cannot be read for want of
 * a process (rather than of the right to read it). */
static int gone(pid_t pid)
{
	char path[64], buf[16];

	vgl_proc_path(path, (uint64_t)pid, "exe");
	return readlink(path, buf, sizeof(buf)) < 0 &&
	       (errno == ENOENT || errno == ESRCH);
}

/*
 * Starts m's file, DIR/NAME.PID.vgl, streamed.  A file that cannot be
 * streamed is kept in memory and written whole at the end, as before
 * streaming (the reason, out of descriptors say, may be gone by then).
 */
static void start_file(struct tree_sampler *t, struct member *m)
{
	char path[PATH_MAX];

	if (!(m->name = file_name(t, m)))
		return;
	snprintf(path, sizeof(path), "%s/%s", t->dir, m->name);
	if (attach_vgl_stream_unheld(&m->av, path) || !m->av.streaming) {
		free(m->name);
		m->name = NULL;
	}
}

/*
 * The process exec'd after stacks of its image (m->av.exec_split): that
 * image's file is made final, and the new image goes on in a file of its
 * own, from the sampler's thread (under m's av_lock).  Out of memory, the
 * file goes on as one, as it did before images were kept apart.
 */
static void split(struct tree_sampler *t, struct member *m,
		  const struct sampler_sample *s)
{
	struct attach_vgl next;
	int how = m->av.exec_split;

	m->av.exec_split = 0;
	if (attach_vgl_split_init(&next, &m->av, s) < 0) {
		m->av.split_exec = 0;
		return;
	}
	write_image(t, m, 0);
	attach_vgl_release(&m->av);
	m->av = next;
	m->images++;
	start_file(t, m);
	attach_vgl_split_feed(&m->av, how, s);
}

/* Frees m, whose sampler never started. */
void tree_sampler_update(struct tree_sampler *t, const pid_t *pids,
			 size_t n)
{
	struct sampler_config cfg;
	struct member **grown;
	char err[SAMPLER_ERR_LEN];
	size_t i, k;
	int ended, e;

	for (i = 0; i < n; i++) {
		struct member *m;

		for (k = 0; k < t->n && t->m[k]->pid != pids[i]; k++)
			;
		if (k < t->n)
			continue;
		m = calloc(1, sizeof(*m));
		grown = realloc(t->m, (t->n + 1) * sizeof(*grown));
		if (!m || !grown) {
			free(m);
			if (grown)
				t->m = grown;
			return;
		}
		t->m = grown;
		m->pid = pids[i];
		m->t = t;
		m->image = proc_image_open(pids[i]);
		if (!m->image || attach_vgl_init(&m->av, pids[i], m->image) < 0) {
			proc_image_close(m->image);
			free(m);
			return;
		}
		m->av.split_exec = 1;
		pthread_mutex_init(&m->av_lock, NULL);
		/* Gone already: nothing to sample, nothing to name it by. */
		if (!m->av.exe && gone(pids[i])) {
			drop(m);
			continue;
		}
		cfg = t->tmpl;
		cfg.pid = pids[i];
		cfg.image = m->image;
		cfg.fn = on_sample;
		cfg.arg = m;
		if ((e = sampler_start(&m->s, &cfg, err, sizeof(err)))) {
			/* Gone already is normal; anything else (not ours to
			 * read, perf refused, out of descriptors) is counted
			 * and said at the end: it would silently leave a
			 * process out. */
			if (e != -ESRCH)
				note_failed(t, pids[i], 0, err, e);
			drop(m);
			continue;
		}
		/* The file after the start, which a short process would not
		 * live through; the first sample waits for it. */
		pthread_mutex_lock(&m->av_lock);
		start_file(t, m);
		pthread_mutex_unlock(&m->av_lock);
		note_failed(t, pids[i], 1, NULL, 0);
		t->m[t->n++] = m;
		t->processes++;
	}
	/* Release the ended ones, after the new pids were looked at: pids
	 * is older than what the samplers saw, so a pid whose process ended
	 * since it was read is still in it, and released first it came back
	 * as a new process, a zombie with no name ("process.PID.vgl", one
	 * sample; seen under load).  A pid that comes back as a new process
	 * is taken at the next update. */
	for (i = k = 0; i < t->n; i++) {
		pthread_mutex_lock(&t->lock);
		ended = t->m[i]->ended;
		pthread_mutex_unlock(&t->lock);
		if (ended)
			finish(t, t->m[i], 1);
		else
			t->m[k++] = t->m[i];
	}
	t->n = k;
}

/*
 * Puts the files to merge first in t->written, and returns how many.  A
 * file without modules (its process ended before a sample could read
 * them) has no stack to add, and merged, it would make a group of its
 * own, matched by path, beside the one its program's other files make by
 * build-id: two NAME.HASH.sampled.vgl, neither joined with NAME.vgl by
 * `vigil report DIR`.  So it is merged only when no file of its exe has
 * modules, and never when it names no exe (it would be
 * "program.sampled.vgl").  It stays in DIR/samples all the same.
 */
static size_t order_for_merge(struct tree_sampler *t)
{
	size_t i, j, n = 0;

	for (i = 0; i < t->files; i++) {
		int merge = t->mods[i] || t->exes[i];
		char *name = t->written[i], *exe = t->exes[i];
		unsigned char mods = t->mods[i];

		for (j = 0; !mods && merge && j < t->files; j++)
			if (t->mods[j] && t->exes[j] && !strcmp(t->exes[j], exe))
				merge = 0;
		if (!merge)
			continue;
		/* Swap i into the first n, all three arrays alike. */
		t->written[i] = t->written[n];
		t->exes[i] = t->exes[n];
		t->mods[i] = t->mods[n];
		t->written[n] = name;
		t->exes[n] = exe;
		t->mods[n] = mods;
		n++;
	}
	return n;
}

int tree_sampler_stop(struct tree_sampler *t, struct tree_sampler_stats *st)
{
	size_t i;
	int err, ended;

	for (i = 0; i < t->n; i++) {
		pthread_mutex_lock(&t->lock);
		ended = t->m[i]->ended;
		pthread_mutex_unlock(&t->lock);
		finish(t, t->m[i], ended);
	}
	free(t->m);
	err = t->write_err;
	pthread_mutex_destroy(&t->lock);
	memset(st, 0, sizeof(*st));
	st->processes = t->processes;
	st->unsampled = t->nfailed;
	st->files = t->files;
	st->samples = t->samples;
	snprintf(st->first_err, sizeof(st->first_err), "%s", t->first_err);
	st->first_errno = t->first_errno;
	st->to_merge = order_for_merge(t);
	st->written = t->written;
	for (i = 0; i < t->files; i++)
		free(t->exes[i]);
	free(t->exes);
	free(t->mods);
	free(t->failed);
	free(t->dir);
	free(t);
	return err;
}

void tree_sampler_stats_release(struct tree_sampler_stats *st)
{
	size_t i;

	for (i = 0; st->written && i < st->files; i++)
		free(st->written[i]);
	free(st->written);
	st->written = NULL;
}
