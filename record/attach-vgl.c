/*
 * attach-vgl.c - see attach-vgl.h.
 *
 * A stack's addresses are only worth keeping with the modules they fall
 * in, and the process may be gone when the file is written, so modules
 * are taken from the process's image (image.h, which reads its maps)
 * while it runs: at the first sample, and again (at most once per
 * sample) when an address falls outside every module known, as after a
 * dlopen.  An address that no module holds even then (a broken
 * frame-pointer chain) is remembered, so that junk is not looked up at
 * every sample.  After an exec the old modules stay in the file (ids are
 * never reused) but no longer take addresses, except those of the stacks
 * taken before it (before_exec), which are placed first, without a
 * re-read.  With stacks, the modules are taken at the first sample too
 * (taken as the sampler starts), so that the image before an exec is
 * known even when no stack came before it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attach-vgl.h"
#include "clock.h"
#include "image.h"
#include "maps.h"
#include "outfile.h"
#include "procid.h"
#include "symbolizer.h"
#include "vgl_writer.h"

struct attach_vgl_module {
	uint32_t id;
	int file_known, file_ok;    /* file read (vgl_file_identity) */
	struct vgl_module_file file;
	int retired;                /* from before an exec */
	uint64_t lo, hi, bias;
	char *path;
	/* Read while it is mapped: a reader then knows a rebuilt file
	 * from the one that ran (issue 16). */
	uint8_t build_id[VGL_BUILD_ID_MAX];
	uint32_t build_id_len;
};

/* How long after the exe was read (at the start, or changed by an exec)
 * an empty cmdline is read again at each sample before it is taken as
 * empty: 8 samples (8 ms at a 1 ms interval) were too few under load,
 * where an execve can stall longer (run/exec-command.test). */
#define CMDLINE_NS 1000000000ull

/* argv from /proc/PID/cmdline; none when it cannot be read. */
static void read_cmdline(struct attach_vgl *av)
{
	char path[64], buf[8192], *p;
	size_t n = 0;
	FILE *f;

	vgl_proc_path(path, (uint64_t)av->pid, "cmdline");
	f = fopen(path, "re");
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	if (n && buf[n - 1])
		n++;    /* cut off mid-argument: end it */
	for (p = buf; p < buf + n; p += strlen(p) + 1) {
		char **grown = realloc(av->argv, (av->argc + 1) * sizeof(*grown));

		if (!grown)
			return;
		av->argv = grown;
		av->argv[av->argc] = strdup(p);
		if (!av->argv[av->argc])
			return;
		av->argc++;
	}
}

/*
 * read_cmdline, and while the command line is empty, again every 50 us
 * for up to 5 ms: read inside an execve, before the new arguments are in
 * place, it is empty, and under load a short program that had just
 * exec'd often ended before a later sample could read it
 * (run/exec-command.test; with up to 1 ms, one `sleep` of 200 still had
 * an empty command in a full suite run beside two busy loops).  A
 * program run with no argv at all costs the 5 ms once.
 */
static void read_cmdline_settled(struct attach_vgl *av)
{
	const struct timespec pause = { 0, 50000 };
	int i;

	read_cmdline(av);
	for (i = 0; i < 100 && !av->argc; i++) {
		nanosleep(&pause, NULL);
		read_cmdline(av);
	}
}

static void free_cmdline(struct attach_vgl *av)
{
	size_t i;

	for (i = 0; i < av->argc; i++)
		free(av->argv[i]);
	free(av->argv);
	av->argv = NULL;
	av->argc = 0;
}

static void refresh_modules(struct attach_vgl *av);

/* An exec: the file becomes the program exe's (taken, malloc'd), with
 * its command line read anew (the old one's argv would sit beside the
 * new exe), at mono. */
static void take_exe(struct attach_vgl *av, char *exe, uint64_t mono)
{
	free(av->exe);
	av->exe = exe;
	free_cmdline(av);
	read_cmdline_settled(av);
	av->cmdline_mono = mono;
}

/* The old image's modules, at an exec: no address is looked up in them
 * again, and the addresses missed in them may be found in the new. */
static void retire_modules(struct attach_vgl *av)
{
	size_t i;

	for (i = 0; i < av->nmods; i++)
		av->mods[i].retired = 1;
	memset(av->missed, 0, sizeof(av->missed));
}

/*
 * The streamed file becomes readable by us alone once the process is
 * another user's or undumpable (outfile_mode_for_pid), though it was
 * ours when the file was made: `setpriv --reuid=nobody CMD` and a daemon
 * that drops its privileges change their uids after their start, and
 * their files stayed 0644 (trust/out-private-attach.test, 1 of 5 full
 * runs).  Asked at each exec and each commit while the process is
 * there; a file is never made more readable.
 */
static void keep_private(struct attach_vgl *av, int fd)
{
	struct stat st;

	if (av->private || fd < 0 || kill(av->pid, 0) < 0 ||
	    outfile_mode_for_pid(av->pid) != 0600)
		return;
	if (fstat(fd, &st) == 0 && fchmod(fd, st.st_mode & 0700) == 0)
		av->private = 1;
}

int attach_vgl_init(struct attach_vgl *av, pid_t pid, struct proc_image *image)
{
	int tries;

	memset(av, 0, sizeof(*av));
	av->pid = pid;
	av->image = image;
	av->start_ns = vgl_clock_ns(CLOCK_REALTIME);
	av->start_mono = vgl_clock_ns(CLOCK_MONOTONIC);
	av->cmdline_mono = av->start_mono;
	vgl_sampled_init(&av->rec);
	/*
	 * The exe is known before any sample: a process that ends before
	 * its first one still names its program (issue 16).  It is read
	 * before and after the command line, until both reads agree (three
	 * tries): an exec between the two reads paired a shell's argv with
	 * the exe of the `sleep` it became, a pair no later sample corrects
	 * (run/exec-command.test, once under load).
	 */
	for (tries = 0; tries < 3; tries++) {
		char *before = vgl_proc_exe(pid);
		int same;

		free_cmdline(av);
		read_cmdline_settled(av);
		free(av->exe);
		av->exe = vgl_proc_exe(pid);
		same = !before || !av->exe || !strcmp(before, av->exe);
		free(before);
		if (same)
			break;
	}
	{
		char state;

		if (vgl_proc_stat((uint64_t)pid, &av->proc_start, &state))
			av->proc_start = 0;
	}
	return 0;
}

static struct attach_vgl_module *module_at(struct attach_vgl *av,
					   uint64_t addr)
{
	size_t i;

	for (i = 0; i < av->nmods; i++)
		if (!av->mods[i].retired && addr >= av->mods[i].lo &&
		    addr < av->mods[i].hi)
			return &av->mods[i];
	return NULL;
}

static void read_modules(struct attach_vgl *av, const struct image_view *v);

/* The live module of the exe's file, or NULL: not mapped (yet). */
static struct attach_vgl_module *exe_module(struct attach_vgl *av)
{
	size_t i;

	for (i = 0; av->exe && i < av->nmods; i++)
		if (!av->mods[i].retired && !strcmp(av->mods[i].path, av->exe))
			return &av->mods[i];
	return NULL;
}

/* A new module of path, zeroed but for its path and id, at the end of
 * av->mods; not counted in av->nmods until the caller has filled it in
 * (the caller increments it).  NULL when out of memory. */
static struct attach_vgl_module *new_module(struct attach_vgl *av,
					    const char *path)
{
	struct attach_vgl_module *m, *grown;

	grown = realloc(av->mods, (av->nmods + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	av->mods = grown;
	m = &av->mods[av->nmods];
	memset(m, 0, sizeof(*m));
	if (!(m->path = strdup(path)))
		return NULL;
	m->id = (uint32_t)av->nmods;
	return m;
}

/*
 * Takes the modules of the process's image now (read_modules), whose exe
 * was read before and after its maps (image.h).  One that differs from
 * the exe the file names is an exec since the sample that last read it:
 * these maps are the new program's, and the file becomes the new
 * program's now, as at a sample that sees the exec (attach_vgl_sample),
 * for a process may end before such a sample: under `vigil run --scan
 * stacks` of xz-utils' make check, 9 of 210 files held xz's modules and
 * stacks under the name and command of the shell (a libtool wrapper
 * script) that exec'd it.  Maps read while the exe kept changing may mix
 * both images: none of their modules are taken.
 */
static void refresh_modules(struct attach_vgl *av)
{
	const struct image_view *v;

	if (av->exec_split || !av->image ||
	    !(v = proc_image_now(av->image)) || v->exe_moved ||
	    !proc_image_fresh(av->image))
		return;
	if (v->exe && av->exe && strcmp(v->exe, av->exe)) {
		char *exe = strdup(v->exe);

		if (!exe)
			return;
		/* One image per file, and this one has stacks: the maps are
		 * the next image's, for the next file (exec_split). */
		if (av->split_exec && av->rec.stack_samples) {
			free(av->pending_exe);
			av->pending_exe = exe;
			av->exec_split = ATTACH_VGL_SPLIT_DONE;
			return;
		}
		take_exe(av, exe, vgl_clock_ns(CLOCK_MONOTONIC));
		retire_modules(av);
		av->exec_early = 1;
	}
	read_modules(av, v);
}

/*
 * Adds the modules of view v not known yet, one per ELF file (its lowest
 * to highest address), with what the image probed of each: build-id
 * (read while it is mapped: a reader then knows a rebuilt file from the
 * one that ran, issue 16) and load bias.  Files of data (the locale, the
 * C library's caches, the counting profile the runtime maps), where no
 * sample can be, are left out.
 */
static void read_modules(struct attach_vgl *av, const struct image_view *v)
{
	size_t i, k;

	for (k = 0; k < v->nmods; k++) {
		const struct image_module *im = &v->mods[k];
		struct attach_vgl_module *m = NULL;

		for (i = 0; i < av->nmods; i++)
			if (!av->mods[i].retired &&
			    !strcmp(av->mods[i].path, im->path))
				m = &av->mods[i];
		if (m) {
			if (im->lo < m->lo)
				m->lo = im->lo;
			if (im->hi > m->hi)
				m->hi = im->hi;
			continue;
		}
		image_module_probe(av->image, v, k);
		if (im->data)
			continue;
		if (!(m = new_module(av, im->path)))
			break;
		m->lo = im->lo;
		m->hi = im->hi;
		/* Without its ELF headers the first mapping is the best
		 * guess of where the file starts (right for PIE and
		 * shared libraries); the vDSO is linked at 0, so its
		 * mapping's start is the bias. */
		m->bias = im->bias_ok ? im->bias : im->first_lo;
		memcpy(m->build_id, im->build_id, im->build_id_len);
		m->build_id_len = im->build_id_len;
		av->nmods++;
	}
}

/* The frame of address addr (a return address when caller); old: of the
 * image before an exec, whose maps are gone (no re-read). */
static struct vgl_frame frame_of(struct attach_vgl *av, uint64_t addr,
				 int caller, uint64_t seq, int old)
{
	uint64_t look = caller && addr ? addr - 1 : addr;
	struct attach_vgl_module *m = module_at(av, look);
	struct vgl_frame fr = { addr, VGL_NO_MODULE, 0 };
	uint64_t *miss = &av->missed[(look ^ (look >> 12)) & 255];

	if (addr == SAMPLER_KERNEL_IP) {
		fr.addr = VGL_KERNEL_ADDR;
		return fr;
	}
	if (!m && !old && *miss != look && av->refreshed_seq != seq) {
		av->refreshed_seq = seq;
		/* Read again if the image has no code there either (a
		 * dlopen no record told of), at most ten times a second. */
		if (av->image)
			proc_image_at(av->image, look);
		refresh_modules(av);
		m = module_at(av, look);
		if (!m)
			*miss = look;
	}
	if (m)
		fr.module = m->id;
	return fr;
}

/* Adds the stacks of s taken before an exec (old 1) or after it. */
static int add_stacks(struct attach_vgl *av, const struct sampler_sample *s,
		      int old)
{
	struct vgl_frame *frames = NULL;
	size_t i, j;

	for (i = 0; i < s->nstacks; i++) {
		const struct sampler_stack *st = &s->stacks[i];
		size_t n = st->nips > VGL_STACK_MAX_FRAMES ?
			   VGL_STACK_MAX_FRAMES : st->nips;

		if (!st->before_exec != !old)
			continue;
		free(frames);
		frames = malloc((n ? n : 1) * sizeof(*frames));
		if (!frames)
			return -ENOMEM;
		for (j = 0; j < n; j++)
			frames[j] = frame_of(av, st->ips[j], j > 0, s->seq, old);
		if (vgl_sampled_add_stack(&av->rec, (uint32_t)st->tid,
					  frames, n, st->count)) {
			free(frames);
			return -ENOMEM;
		}
	}
	free(frames);
	return 0;
}

static int stream_commit(struct attach_vgl *av, int final, int ended,
			 int exit_known, int exit_status);

void attach_vgl_maps(struct attach_vgl *av)
{
	if (av->modules_read && !av->failed)
		refresh_modules(av);
}

/* Whether s shows an exec since the image av records. */
static int exec_in(const struct attach_vgl *av, const struct sampler_sample *s)
{
	return s->exe_changed ||
	       (s->exe && !s->exe_stale && av->exe && strcmp(av->exe, s->exe));
}

/* Whether s has stacks taken before an exec. */
static int has_old_stacks(const struct sampler_sample *s)
{
	size_t i;

	for (i = 0; i < s->nstacks; i++)
		if (s->stacks[i].before_exec)
			return 1;
	return 0;
}

/* The file's record of sample s. */
static void reading_of(const struct attach_vgl *av,
		       const struct sampler_sample *s, struct vgl_sample *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->time_ns = s->time_ns;
	rec->elapsed_ns = s->mono_ns > av->start_mono ?
			  s->mono_ns - av->start_mono : 0;
	rec->scan = s->scan & (VGL_SAMPLE_HOST_CPU | VGL_SAMPLE_CPU |
			       VGL_SAMPLE_THREADS | VGL_SAMPLE_MEMORY |
			       VGL_SAMPLE_STACKS);
	rec->cpu_user_us = s->cpu_user_us;
	rec->cpu_sys_us = s->cpu_sys_us;
	rec->cpu_run_ns = s->cpu_run_ns;
	rec->interval_ns = s->interval_ns;
	rec->rss_bytes = s->rss_bytes;
	rec->anon_bytes = s->anon_bytes;
	rec->file_bytes = s->file_bytes;
	rec->swap_bytes = s->swap_bytes;
	rec->host_user_us = s->host_user_us;
	rec->host_sys_us = s->host_sys_us;
	rec->host_idle_us = s->host_idle_us;
	rec->host_iowait_us = s->host_iowait_us;
	rec->stack_samples = s->stack_samples;
}

void attach_vgl_sample(struct attach_vgl *av, const struct sampler_sample *s)
{
	struct vgl_sample rec;
	struct vgl_sample_thread *th = NULL;
	size_t i;

	if (s->kind != SAMPLER_SAMPLE || av->failed)
		return;
	/*
	 * One image per file: an exec after stacks of the image before it
	 * ends this file with them, and the sample is the next image's
	 * (attach_vgl_split_init).  Kept in one file, a libtool wrapper
	 * script's stacks went into the file, and the merged profile, of
	 * the xz it exec'd (177 of 936 files of xz-utils' make check).  An
	 * image with no stacks yet (a shell that exec'd at once) has
	 * nothing to keep apart: its file becomes the new program's.
	 */
	if (av->split_exec && !av->skip_old && av->modules_read &&
	    exec_in(av, s) && (av->rec.stack_samples || has_old_stacks(s))) {
		if ((s->scan & SAMPLER_SCAN_STACKS) && add_stacks(av, s, 1))
			av->failed = -ENOMEM;
		av->exec_split = ATTACH_VGL_SPLIT_SAMPLE;
		return;
	}
	/* Not the last exe the sampler read, when it cannot read one now:
	 * refresh_modules may have read the new one since. */
	if (s->exe && !s->exe_stale && (!av->exe || strcmp(av->exe, s->exe))) {
		take_exe(av, strdup(s->exe), s->mono_ns);
		av->recheck_mode = 1;
	} else if (!av->argc && s->mono_ns < av->cmdline_mono + CMDLINE_NS) {
		/* Read inside execve, after the new image and before its
		 * arguments are in place, cmdline is empty (5 of 223 short
		 * `sleep`s under vigil run --scan at 1 ms): asked again.  A
		 * program run with no argv at all stays empty, after a
		 * second. */
		read_cmdline(av);
	}
	if ((s->scan & SAMPLER_SCAN_STACKS) && !av->modules_read) {
		av->modules_read = 1;
		refresh_modules(av);
	}
	/* The old image's stacks against its modules, before they retire
	 * (a new image's first sample: they went with the old one). */
	if ((s->scan & SAMPLER_SCAN_STACKS) && !av->skip_old &&
	    add_stacks(av, s, 1))
		goto fail;
	/* The exec, unless refresh_modules saw it first and retired the old
	 * image's modules then (its new ones stay), or this file starts
	 * with the new image. */
	if (s->exe_changed && !av->exec_early && !av->skip_old)
		retire_modules(av);
	/* The new image's modules now, while it may still live: a stack
	 * of it to come would read them, but a program that ends before
	 * its first stack sample (a sleep, a short xzdec) would leave a
	 * file named after it with the old image's modules alone. */
	if (s->exe_changed && av->modules_read && !exe_module(av) &&
	    !av->skip_old)
		refresh_modules(av);
	if (s->exe_changed)
		av->exec_early = 0;
	reading_of(av, s, &rec);
	if ((s->scan & SAMPLER_SCAN_THREADS) && s->nthreads) {
		th = calloc(s->nthreads, sizeof(*th));
		if (!th)
			goto fail;
		for (i = 0; i < s->nthreads; i++) {
			th[i].tid = (uint32_t)s->threads[i].tid;
			memcpy(th[i].name, s->threads[i].name, sizeof(th[i].name));
			th[i].name[sizeof(th[i].name) - 1] = 0;
			th[i].user_us = s->threads[i].user_us;
			th[i].sys_us = s->threads[i].sys_us;
			th[i].run_ns = s->threads[i].run_ns;
		}
	}
	if (vgl_sampled_add_sample(&av->rec, &rec, th,
				   (s->scan & SAMPLER_SCAN_THREADS) ?
				   s->nthreads : 0))
		goto fail;
	if (s->scan & SAMPLER_SCAN_STACKS) {
		av->rec.stack_lost += s->stack_lost;
		av->rec.frequency = s->frequency;
		if (add_stacks(av, s, 0))
			goto fail;
	}
	free(th);
	/* Streamed: committed every second, or sooner when a megabyte of
	 * samples waits; what a killed vigil loses is at most that. */
	if (av->streaming && (av->recheck_mode ||
	    av->rec.samples_len >= (1u << 20) ||
	     vgl_clock_ns(CLOCK_MONOTONIC) - av->commit_mono >= 1000000000ull)) {
		int err;

		av->recheck_mode = 0;
		err = stream_commit(av, 0, 0, 0, 0);

		if (err)
			av->failed = err;
	}
	return;
fail:
	free(th);
	av->failed = -ENOMEM;
}

/*
 * At the end, a file whose maps were read names its exe among its
 * modules, also when no read of the maps saw it: the process exec'd and
 * ended before a read found the new image mapped (its stacks, if any,
 * are the old image's).  The exe's own file stands for it, with no
 * addresses (none of its was sampled) and the build-id on disk, so that
 * the file says which program it ends as.
 */
static void add_exe_module(struct attach_vgl *av)
{
	struct attach_vgl_module *m;
	int n;

	if (!av->modules_read || !av->exe || av->exe[0] != '/' ||
	    exe_module(av) || !(m = new_module(av, av->exe)))
		return;
	n = vgl_elf_file_build_id(m->path, m->build_id, sizeof(m->build_id));
	m->build_id_len = n > 0 ? (uint32_t)n : 0;
	av->nmods++;
}

/* Fills w with the run's META, strings and modules (mods and files are
 * the caller's, av->nmods + 1 each).  state: as attach_vgl_write says, or
 * RUNNING while a stream goes on. */
static void fill_writer(struct attach_vgl *av, struct vgl_writer *w,
			struct vgl_writer_module *mods,
			struct vgl_module_file *files, char *host, size_t hostlen,
			int running, int ended, int exit_known, int exit_status)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	w->meta.kind = VGL_KIND_SAMPLED;
	w->meta.pid = (uint64_t)av->pid;
	w->meta.start_ns = av->start_ns;
	w->meta.end_ns = vgl_clock_ns(CLOCK_REALTIME);
	if (running) {
		/* What a reader finds if we are killed: the samples up to
		 * the last commit, of a run cut short.  (RUNNING would name
		 * the target as the writer, which readers would find alive
		 * however long ago vigil was killed.) */
		w->meta.state = VGL_STATE_CUT_SHORT;
		w->meta.end_ns = 0;
	} else if (av->switched) {
		/* The image exec'd another program: ended as itself. */
		w->meta.state = VGL_STATE_FINISHED;
		w->meta.flags = VGL_META_SWITCHED;
	} else if (!ended) {
		w->meta.state = VGL_STATE_FINISHED;
		w->meta.flags = VGL_META_DETACHED;
	} else if (exit_known && WIFEXITED(exit_status)) {
		w->meta.state = VGL_STATE_FINISHED;
		w->meta.exit_status = WEXITSTATUS(exit_status);
	} else {
		/* Killed, or reaped before its status could be seen. */
		w->meta.state = VGL_STATE_CUT_SHORT;
		w->meta.end_ns = 0;
	}
	w->meta.proc_start = av->proc_start;
	vgl_boot_id(w->meta.boot_id);
	w->exe = av->exe;
	if (gethostname(host, hostlen) == 0) {
		host[hostlen - 1] = 0;
		w->host = host;
	}
	w->argv = (const char *const *)av->argv;
	w->argc = av->argc;
	for (i = 0; i < av->nmods; i++) {
		mods[i].id = av->mods[i].id;
		mods[i].bias = av->mods[i].bias;
		mods[i].lo = av->mods[i].lo;
		mods[i].hi = av->mods[i].hi;
		mods[i].path = av->mods[i].path;
		mods[i].build_id = av->mods[i].build_id;
		mods[i].build_id_len = av->mods[i].build_id_len;
		/* What identifies each file lets a reader tell whether it
		 * is still the one that ran; read once per module. */
		if (!av->mods[i].file_known) {
			av->mods[i].file_ok =
				!vgl_file_identity(mods[i].path,
						   &av->mods[i].file);
			av->mods[i].file_known = 1;
		}
		files[i] = av->mods[i].file;
		if (av->mods[i].file_ok)
			mods[i].file = &files[i];
	}
	w->modules = mods;
	w->nmodules = av->nmods;
}

/* Commits the stream: the samples since the last commit, and the rest. */
static int stream_commit(struct attach_vgl *av, int final, int ended,
			 int exit_known, int exit_status)
{
	struct vgl_writer w;
	struct vgl_writer_module *mods;
	struct vgl_module_file *files;
	char host[256];
	int err;

	if (av->stream_path) {
		/* Opened for the commit only.  Out of descriptors (or
		 * anything else) is tried again at the next one: the
		 * samples wait in memory meanwhile.  At the end it is an
		 * error. */
		av->stream.fd = open(av->stream_path, O_WRONLY | O_CLOEXEC);
		if (av->stream.fd < 0) {
			err = -errno;
			av->commit_mono = vgl_clock_ns(CLOCK_MONOTONIC);
			return final ? err : 0;
		}
	}
	keep_private(av, av->stream.fd);
	mods = calloc(av->nmods + 1, sizeof(*mods));
	files = calloc(av->nmods + 1, sizeof(*files));
	if (!mods || !files) {
		err = -ENOMEM;
	} else {
		fill_writer(av, &w, mods, files, host, sizeof(host), !final,
			    ended, exit_known, exit_status);
		err = vgl_sampled_stream_commit(&av->stream, &av->rec, &w,
						final);
	}
	free(mods);
	free(files);
	if (av->stream_path) {
		if (close(av->stream.fd) && !err)
			err = -errno;
		av->stream.fd = -1;
	}
	av->commit_mono = vgl_clock_ns(CLOCK_MONOTONIC);
	return err;
}

int attach_vgl_stream(struct attach_vgl *av, const char *path)
{
	struct outfile o;
	int err, fd;

	/* A FIFO or a device: written whole at the end (opened only then:
	 * a FIFO's reader would take an open and close for the end). */
	err = outfile_is_stream(path);
	if (err)
		return err < 0 ? err : 0;
	/* Another user's process, or a setuid one: a recording only we
	 * may read (issue 28.2). */
	av->private = outfile_mode_for_pid(av->pid) == 0600;
	err = outfile_open_mode(&o, path, av->private ? 0600 : 0666);
	if (err)
		return err;
	if (!o.tmp) {
		outfile_close(&o, 0);
		return 0;
	}
	fd = dup(fileno(o.f));
	err = fd < 0 ? -errno : vgl_sampled_stream_open(&av->stream, fd);
	if (!err)
		err = stream_commit(av, 0, 0, 0, 0);
	/* At its name from the first sample on: a killed vigil leaves it
	 * there, valid, with what it had committed. */
	if (!err)
		err = outfile_close(&o, 1);
	else
		outfile_close(&o, 0);
	if (err) {
		if (fd >= 0)
			close(fd);
		return err;
	}
	av->streaming = 1;
	return 0;
}

int attach_vgl_stream_unheld(struct attach_vgl *av, const char *path)
{
	int err = attach_vgl_stream(av, path);

	/* Out of memory for the name: held open after all. */
	if (err || !av->streaming || !(av->stream_path = strdup(path)))
		return err;
	close(av->stream.fd);
	av->stream.fd = -1;
	return 0;
}

int attach_vgl_write(struct attach_vgl *av, const char *path, int ended,
		     int exit_known, int exit_status)
{
	struct vgl_writer w;
	struct vgl_writer_module *mods = NULL;
	struct vgl_module_file *files = NULL;
	struct vgl_writer_section extra[3];
	char host[256];
	int err;

	if (av->failed)
		return av->failed;
	add_exe_module(av);
	if (av->streaming) {
		err = stream_commit(av, 1, ended, exit_known, exit_status);
		if (av->stream.fd >= 0 && close(av->stream.fd) && !err)
			err = -errno;
		av->stream.fd = -1;
		av->streaming = 0;
		return err;
	}
	mods = calloc(av->nmods + 1, sizeof(*mods));
	files = calloc(av->nmods + 1, sizeof(*files));
	if (!mods || !files) {
		free(mods);
		free(files);
		return -ENOMEM;
	}
	fill_writer(av, &w, mods, files, host, sizeof(host), 0, ended,
		    exit_known, exit_status);
	err = vgl_sampled_sections(&av->rec, extra);
	if (!err)
		err = vgl_sampled_readings(&av->rec, &extra[2]);
	if (!err) {
		w.extra = extra;
		w.nextra = extra[2].kind ? 3 : 2;
		err = vgl_writer_file(&w, path);
	}
	free(mods);
	free(files);
	return err;
}

int attach_vgl_split_init(struct attach_vgl *next, struct attach_vgl *av,
			  const struct sampler_sample *s)
{
	const char *exe = av->pending_exe;
	int err;

	if (s && s->exe && !s->exe_stale)
		exe = s->exe;
	err = attach_vgl_init(next, av->pid, av->image);
	if (err)
		return err;
	/* Gone already, or read mid-exec: the exe the exec named. */
	if (exe && (!next->exe || !strcmp(next->exe, av->exe ? av->exe : ""))) {
		free(next->exe);
		if (!(next->exe = strdup(exe))) {
			attach_vgl_release(next);
			return -ENOMEM;
		}
	}
	next->split_exec = 1;
	av->switched = 1;
	return 0;
}

void attach_vgl_split_feed(struct attach_vgl *next, int exec_split,
			   const struct sampler_sample *s)
{
	if (exec_split != ATTACH_VGL_SPLIT_SAMPLE || !s)
		return;
	next->skip_old = 1;
	attach_vgl_sample(next, s);
	next->skip_old = 0;
}

void attach_vgl_release(struct attach_vgl *av)
{
	size_t i;

	free(av->pending_exe);
	if (av->streaming && av->stream.fd >= 0)  /* never written */
		close(av->stream.fd);
	free(av->stream_path);
	for (i = 0; i < av->nmods; i++)
		free(av->mods[i].path);
	free(av->mods);
	free_cmdline(av);
	free(av->exe);
	vgl_sampled_release(&av->rec);
}
