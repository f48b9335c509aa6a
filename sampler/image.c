/*
 * image.c - see image.h.
 *
 * A read takes the exe, the maps, then the exe again, up to three times
 * until the two exes agree: an exec between them leaves maps of either
 * image under one exe (under `vigil run --scan stacks` of xz-utils' make
 * check, files named after the shell held xz's modules).  The maps are
 * read whole by lib/maps.c, the one reader of /proc/PID/maps, and their
 * text is kept: libdwfl reports the modules from it instead of reading
 * the file again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "image.h"
#include "maps.h"
#include "symbolizer.h"

/* See proc_image_now and proc_image_at: after new code was mapped, the
 * maps are read again before the next use, but at most this often (a
 * program that dlopens in a loop made every wake-up read them: vigil's
 * CPU at 999 Hz, 0.64 s in 5 s against 0.20 s before the re-reads). */
#define STALE_NS 50000000ull
#define RELOAD_NS 100000000ull

struct proc_image {
	pid_t pid;
	struct image_view *cur;    /* the latest read; NULL: none yet */
	struct image_view *old;    /* the image before the latest exec */
	uint64_t seq, gen;
	uint64_t tried_ns;         /* the latest read tried, 0: none */
	int forgot;                /* read at the next use */
	int stale;                 /* new code mapped since the read */
	int hold;
	int exe_ahead;             /* a read found a new exe that no exec
	                            * record has told of yet */
};

static void view_free(struct image_view *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->nmods; i++)
		free(v->mods[i].path);
	free(v->mods);
	free(v->maps);
	free(v->text);
	free(v->exe);
	free(v->sym_of);
	vgl_symbolizer_free(v->sym);
	free(v);
}

/* The module of v named path, or -1. */
static long module_named(const struct image_view *v, const char *path)
{
	size_t i;

	for (i = 0; i < v->nmods; i++)
		if (!strcmp(v->mods[i].path, path))
			return (long)i;
	return -1;
}

/* Adds mapping m to v (and its module, if it maps a file or the vDSO):
 * 0 or -ENOMEM. */
static int add_map(struct image_view *v, const struct vgl_map *m,
		   size_t *capmaps, size_t *capmods)
{
	struct image_map *im;
	long mod = -1;

	if (m->path[0] == '/' || !strcmp(m->path, VGL_VDSO_PATH)) {
		/* The kernel lists a file's mappings one after another: the
		 * last module first, not a search of all of them per line
		 * (thousands of lines, hundreds of modules). */
		mod = v->nmods && !strcmp(v->mods[v->nmods - 1].path, m->path) ?
		      (long)v->nmods - 1 : module_named(v, m->path);
		if (mod < 0) {
			struct image_module *md;

			if (v->nmods == *capmods) {
				size_t cap = *capmods ? *capmods * 2 : 64;

				md = realloc(v->mods, cap * sizeof(*md));
				if (!md)
					return -ENOMEM;
				v->mods = md;
				*capmods = cap;
			}
			md = &v->mods[v->nmods];
			memset(md, 0, sizeof(*md));
			if (!(md->path = strdup(m->path)))
				return -ENOMEM;
			md->lo = md->first_lo = m->lo;
			md->hi = md->first_hi = m->hi;
			md->dev = m->dev;
			md->inode = m->inode;
			mod = (long)v->nmods++;
		} else {
			struct image_module *md = &v->mods[mod];

			if (m->lo < md->lo)
				md->lo = m->lo;
			if (m->hi > md->hi)
				md->hi = m->hi;
		}
		if (!m->offset && !v->mods[mod].has_base) {
			v->mods[mod].has_base = 1;
			v->mods[mod].base = m->lo;
		}
	}
	if (v->nmaps == *capmaps) {
		size_t cap = *capmaps ? *capmaps * 2 : 128;

		im = realloc(v->maps, cap * sizeof(*im));
		if (!im)
			return -ENOMEM;
		v->maps = im;
		*capmaps = cap;
	}
	im = &v->maps[v->nmaps++];
	im->lo = m->lo;
	im->hi = m->hi;
	im->offset = m->offset;
	memcpy(im->perms, m->perms, sizeof(im->perms));
	im->mod = mod;
	return 0;
}

/* The maps of pid into a new view (text kept); NULL when they cannot be
 * read, or hold nothing: an exited process reads as no mappings. */
static struct image_view *read_maps(pid_t pid)
{
	struct image_view *v = calloc(1, sizeof(*v));
	size_t capmaps = 0, capmods = 0;
	struct vgl_maps maps;
	struct vgl_map m;

	if (!v)
		return NULL;
	if (vgl_maps_open(&maps, pid)) {
		free(v);
		return NULL;
	}
	v->text = malloc(maps.len + 1);
	if (!v->text)
		goto fail;
	memcpy(v->text, maps.buf, maps.len);
	v->text[maps.len] = 0;
	v->len = maps.len;
	while (vgl_maps_next(&maps, &m))
		if (add_map(v, &m, &capmaps, &capmods))
			goto fail;
	vgl_maps_close(&maps);
	if (!v->nmaps) {
		view_free(v);
		return NULL;
	}
	return v;
fail:
	vgl_maps_close(&maps);
	view_free(v);
	return NULL;
}

/* Copies what probes found of the files v shares with prev. */
static void carry_over(struct image_view *v, const struct image_view *prev)
{
	size_t i;

	for (i = 0; prev && i < v->nmods; i++) {
		struct image_module *m = &v->mods[i];
		long j = module_named(prev, m->path);
		const struct image_module *p = j < 0 ? NULL : &prev->mods[j];

		if (!p || !p->probed || p->dev != m->dev ||
		    p->inode != m->inode || p->first_lo != m->first_lo ||
		    p->has_base != m->has_base || p->base != m->base)
			continue;
		m->probed = 1;
		m->data = p->data;
		m->bias_ok = p->bias_ok;
		m->bias = p->bias;
		memcpy(m->build_id, p->build_id, sizeof(m->build_id));
		m->build_id_len = p->build_id_len;
	}
}

/*
 * Reads the image: a new view, or the old one stands when nothing can be
 * read (the process has ended, and its stacks are still named).  A read
 * whose exe is not the last one's is a new image, as an exec record
 * would say (proc_image_exec).
 */
static void read_image(struct proc_image *img)
{
	struct image_view *v = NULL;
	char *exe = NULL;
	int tries, moved = 1;

	img->tried_ns = vgl_clock_ns(CLOCK_MONOTONIC);
	img->forgot = img->stale = 0;
	for (tries = 0; tries < 3 && moved; tries++) {
		char *after;

		view_free(v);
		free(exe);
		exe = vgl_proc_exe(img->pid);
		v = read_maps(img->pid);
		after = vgl_proc_exe(img->pid);
		moved = exe && after && strcmp(exe, after);
		free(after);
	}
	if (!v) {
		free(exe);
		return;
	}
	v->exe = exe;
	v->exe_moved = moved;
	v->read_ns = img->tried_ns;
	v->seq = ++img->seq;
	if (img->cur && img->cur->exe && exe && strcmp(img->cur->exe, exe)) {
		/* An exec no record told of: the image before it is old. */
		view_free(img->old);
		img->old = img->cur;
		img->cur = NULL;
		img->gen++;
		img->exe_ahead = 1;
	}
	v->gen = img->gen;
	carry_over(v, img->cur ? img->cur : img->old);
	view_free(img->cur);
	img->cur = v;
}

struct proc_image *proc_image_open(pid_t pid)
{
	struct proc_image *img = calloc(1, sizeof(*img));

	if (img)
		img->pid = pid;
	return img;
}

void proc_image_close(struct proc_image *img)
{
	if (!img)
		return;
	view_free(img->cur);
	view_free(img->old);
	free(img);
}

pid_t proc_image_pid(const struct proc_image *img)
{
	return img->pid;
}

/* The view a hold answers with: the image before the exec whose samples
 * are being unwound, which is the old one if a read already found the
 * new exe. */
static const struct image_view *held(const struct proc_image *img)
{
	return img->exe_ahead && img->old ? img->old : img->cur;
}

const struct image_view *proc_image_now(struct proc_image *img)
{
	uint64_t now;

	if (img->hold)
		return held(img);
	if (!img->tried_ns || img->forgot)
		read_image(img);
	else if (img->stale) {
		now = vgl_clock_ns(CLOCK_MONOTONIC);
		if (now - img->tried_ns > STALE_NS)
			read_image(img);
	}
	return img->cur;
}

const struct image_view *proc_image_at(struct proc_image *img, uint64_t addr)
{
	const struct image_view *v = proc_image_now(img);

	if (img->hold || (v && image_view_in_x(v, addr)))
		return v;
	if (vgl_clock_ns(CLOCK_MONOTONIC) - img->tried_ns > RELOAD_NS)
		read_image(img);
	return img->cur;
}

const struct image_view *proc_image_refresh(struct proc_image *img)
{
	if (img->hold)
		return held(img);
	read_image(img);
	return img->cur;
}

int proc_image_fresh(const struct proc_image *img)
{
	return img->cur && img->cur->read_ns == img->tried_ns;
}

void proc_image_mapped(struct proc_image *img)
{
	img->stale = 1;
}

void proc_image_forget(struct proc_image *img)
{
	img->forgot = 1;
}

void proc_image_exec(struct proc_image *img)
{
	img->forgot = 1;
	if (img->exe_ahead) {
		/* The read that found the new exe moved the image already. */
		img->exe_ahead = 0;
		return;
	}
	img->gen++;
	if (img->cur) {
		view_free(img->old);
		img->old = img->cur;
		img->cur = NULL;
	}
}

void proc_image_hold(struct proc_image *img, int hold)
{
	img->hold = hold;
}

const struct image_view *proc_image_old(const struct proc_image *img)
{
	return img->old;
}

const struct image_map *image_view_map_at(const struct image_view *v,
					  uint64_t addr)
{
	size_t lo = 0, hi = v->nmaps;

	/* The kernel lists the mappings by address, without overlaps. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < v->maps[mid].lo)
			hi = mid;
		else if (addr >= v->maps[mid].hi)
			lo = mid + 1;
		else
			return &v->maps[mid];
	}
	return NULL;
}

int image_view_in_x(const struct image_view *v, uint64_t addr)
{
	const struct image_map *m = image_view_map_at(v, addr);

	return m && m->perms[2] == 'x';
}

void image_module_probe(struct proc_image *img, const struct image_view *cv,
			size_t i)
{
	struct image_module *m = &((struct image_view *)cv)->mods[i];
	int vdso = !strcmp(m->path, VGL_VDSO_PATH);
	char mf[96];
	int n;

	if (m->probed)
		return;
	m->probed = 1;
	/* The mapped file itself, which a rebuild on disk does not
	 * replace; else its path.  The vDSO: vigil's own is the target's
	 * (one kernel). */
	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx",
		 (int)img->pid, (unsigned long long)m->first_lo,
		 (unsigned long long)m->first_hi);
	if (vdso)
		n = vgl_vdso_build_id(m->build_id, sizeof(m->build_id));
	else
		n = vgl_elf_file_build_id(mf, m->build_id, sizeof(m->build_id));
	if (n < 0 && !vdso)
		n = vgl_elf_file_build_id(m->path, m->build_id,
					  sizeof(m->build_id));
	/* Not ELF: told by its contents, not by how it is mapped now (the
	 * loader maps a library read-only before it maps its code). */
	m->data = n == -ENOEXEC;
	m->build_id_len = n > 0 ? (uint32_t)n : 0;
	if (!m->data && !vdso && m->has_base)
		m->bias_ok = !vgl_elf_load_bias(m->path, m->base, &m->bias);
}

struct vgl_symbolizer *image_view_symbolizer(struct proc_image *img,
					     const struct image_view *cv)
{
	struct image_view *v = (struct image_view *)cv;
	struct vgl_symbolizer_module *mods;
	size_t i, n = 0;

	if (v->sym_tried)
		return v->sym;
	v->sym_tried = 1;
	mods = calloc(v->nmods ? v->nmods : 1, sizeof(*mods));
	v->sym_of = malloc((v->nmods ? v->nmods : 1) * sizeof(*v->sym_of));
	if (!mods || !v->sym_of) {
		free(mods);
		return NULL;
	}
	for (i = 0; i < v->nmods; i++) {
		v->sym_of[i] = SIZE_MAX;
		if (v->mods[i].path[0] != '/')
			continue;
		image_module_probe(img, v, i);
		if (!v->mods[i].bias_ok)
			continue;
		mods[n].path = v->mods[i].path;
		mods[n].bias = v->mods[i].bias;
		v->sym_of[i] = n++;
	}
	if (vgl_symbolizer_new(&v->sym, mods, n))
		v->sym = NULL;
	free(mods);
	return v->sym;
}
