/*
 * symbolizer.c - see symbolizer.h.
 *
 * Symbols come from the ELF file with libelf: its .symtab, which names
 * everything; or, when the file is stripped, every table there is, merged
 * into one (an address named by several takes the first one's name):
 * .dynsym (the exported functions), the .symtab of .gnu_debugdata
 * (MiniDebugInfo: an xz-compressed ELF file holding the function symbols
 * that .dynsym lacks, which Fedora ships and Debian does not) and the
 * .symtab of its separate debug file (found by build-id under
 * DEBUG/.build-id/, or by .gnu_debuglink next to the file, in its .debug/
 * directory or under DEBUG, where DEBUG is /usr/lib/debug or each
 * directory of VIGIL_DEBUG_DIR).  Code none of them names is named by
 * the caller after the start of its FDE, else its module
 * (vgl_symbolizer_place).  We read the tables ourselves instead of asking
 * libdwfl per address because
 * dwfl_module_addrinfo scans the whole table on every call: with 100k
 * addresses that is the quadratic cost the reports used to pay.
 *
 * Lines come from libdw (through libdwfl, which finds separate debug
 * files the standard way), one CU at a time where .debug_aranges names
 * it, the other CUs at once (Clang emits no .debug_aranges: see
 * load_lines).  A debug file with compressed sections is the exception:
 * its lines are read from .debug_line by lib/dwline.c (see
 * load_raw_lines), since libdw inflates all of such a file to open it.
 *
 * Every file is opened with O_NONBLOCK and used only if fstat calls it a
 * regular file, so a module path naming a FIFO or a device cannot block.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <lzma.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "maps.h"
#include "message.h"
#include "crc32.h"
#include "dwline.h"
#include "elfplt.h"
#include "symbolizer.h"
#include "vgl_format.h"

/* errno-like codes of our own for the warning's wording. */
#define ENOTREG (-1000)         /* not a regular file */

static const char *why(int e)
{
	if (e == ENOTREG)
		return "not a regular file";
	if (e == ENOEXEC)
		return "not an ELF file";
	return strerror(e);
}

/*
 * A C++ name demangled (malloc'd), or NULL.  The C++ runtime's demangler
 * is loaded with dlopen on the first C++ name, not linked: libstdc++ (and
 * the libm and libgcc_s it brings) was a tenth of the start-up of every
 * vigil command, most of which never see one.
 */
static char *(*cxa_demangle)(const char *, char *, size_t *, int *);

static void load_demangler(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);

	if (h)
		*(void **)&cxa_demangle = dlsym(h, "__cxa_demangle");
	if (!cxa_demangle)
		vgl_warning("cannot load the C++ demangler (libstdc++.so.6: %s); C++ names are shown mangled",
			    h ? "no __cxa_demangle" : dlerror());
}

static char *demangle(const char *name)
{
	/* Once per process, whichever thread asks first (the sampler's
	 * thread names frames too). */
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int status = -1;
	char *dem;

	pthread_once(&once, load_demangler);
	if (!cxa_demangle)
		return NULL;
	dem = cxa_demangle(name, NULL, NULL, &status);
	if (status == 0 && dem)
		return dem;
	free(dem);
	return NULL;
}

struct line_row {
	uint64_t addr;
	const char *file;       /* interned; NULL for an end of sequence */
	int line;
	uint32_t order : 31;    /* position in the CU's program, for ties */
	uint32_t end : 1;       /* an end of sequence */
};

struct sym_module {
	char *path;
	const char *name;       /* base name of path */
	uint8_t build_id[64];
	size_t build_id_len;
	uint64_t bias;
	int has_file;           /* no build-id: what identified the file */
	struct vgl_module_file file;

	int loaded;             /* symbols tried */
	int usable;             /* readable, build-id matches */
	int fd, dbg_fd;
	Elf *elf, *dbg_elf;
	Elf *mini_elf;                  /* .gnu_debugdata, decompressed */
	void *mini_buf;                 /* its bytes, which mini_elf reads */
	void *image_buf;                /* the vDSO's bytes, which elf reads */
	struct vgl_func_sym *funcs;     /* sorted by start */
	size_t nfuncs;
	char *plt_names;                /* the NAME@plt of funcs' stubs */

	int cfi_tried;
	Dwarf_CFI *cfi;                 /* .eh_frame */
	uint64_t *fde_starts;           /* from .eh_frame_hdr, sorted */
	size_t nfde;

	int lines_loaded;
	int dwfl_tried;
	Dwfl *dwfl;
	Dwfl_Module *dwmod;
	struct line_row *lines;         /* sorted by (addr, order) */
	size_t nlines;
	/* With .debug_aranges, lines are read one CU at a time, as asked
	 * (see vgl_symbolizer_line); else all at once into lines. */
	int aranges_tried;
	int by_cu;                      /* it has .debug_aranges */
	Dwarf *dw;
	Dwarf_Addr dwbias;
	struct cu_rows *cus;            /* sorted by off */
	size_t ncus, cus_cap;
	/* Compressed debug sections: lines read by lib/dwline.c, not libdw
	 * (see load_raw_lines); each sequence's addresses and unit. */
	int raw;
	struct vgl_dwline_sections sec;
	struct line_seq *seqs;          /* sorted by start */
	size_t nseqs;
};

/* One sequence of a line program: [start, end), in the unit at .debug_line
 * offset unit; maxend is the largest end of the sequences up to it. */
struct line_seq {
	uint64_t start, end, maxend;
	size_t unit;
};

/* One CU's line rows, sorted by (addr, order). */
struct cu_rows {
	Dwarf_Off off;
	struct line_row *rows;
	size_t n;
};

/* One address's inlined functions: inl_names[first .. first + n). */
struct inl_entry {
	size_t mod;             /* SIZE_MAX: empty */
	uint64_t addr;
	size_t first, n;
};

struct vgl_symbolizer {
	struct sym_module *mods;
	size_t nmods;
	struct inl_entry *inl;  /* open addressing, power-of-2 capacity */
	size_t inl_cap, inl_len;
	const char **inl_names;
	const char **inl_files; /* the file declaring each (base name), or
	                         * NULL; as long as inl_names */
	size_t inl_nnames, inl_names_cap;
	char **interned;        /* open addressing, power-of-2 capacity */
	size_t icap, ilen;
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* ---- interned strings ---------------------------------------------------- */

static size_t str_hash(const char *s)
{
	size_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

const char *vgl_symbolizer_intern(struct vgl_symbolizer *s, const char *str)
{
	size_t j;

	if (s->ilen * 2 >= s->icap) {
		size_t cap = s->icap ? s->icap * 2 : 256, i;
		char **n = calloc(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (i = 0; i < s->icap; i++) {
			if (!s->interned[i])
				continue;
			j = str_hash(s->interned[i]) & (cap - 1);
			while (n[j])
				j = (j + 1) & (cap - 1);
			n[j] = s->interned[i];
		}
		free(s->interned);
		s->interned = n;
		s->icap = cap;
	}
	j = str_hash(str) & (s->icap - 1);
	while (s->interned[j]) {
		if (!strcmp(s->interned[j], str))
			return s->interned[j];
		j = (j + 1) & (s->icap - 1);
	}
	s->interned[j] = strdup(str);
	if (!s->interned[j])
		return NULL;
	s->ilen++;
	return s->interned[j];
}

/* ---- modules ------------------------------------------------------------- */

int vgl_symbolizer_new(struct vgl_symbolizer **out,
		       const struct vgl_symbolizer_module *mods, size_t n)
{
	struct vgl_symbolizer *s;
	size_t i;

	*out = NULL;
	/* libelf refuses every call until told which ELF version we speak. */
	elf_version(EV_CURRENT);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->mods = calloc(n ? n : 1, sizeof(*s->mods));
	if (!s->mods)
		goto nomem;
	for (i = 0; i < n; i++) {
		struct sym_module *m = &s->mods[s->nmods++];

		m->fd = m->dbg_fd = -1;
		m->path = strdup(mods[i].path ? mods[i].path : "");
		if (!m->path)
			goto nomem;
		m->name = base_name(m->path);
		m->bias = mods[i].bias;
		if (mods[i].build_id && mods[i].build_id_len <= sizeof(m->build_id)) {
			memcpy(m->build_id, mods[i].build_id, mods[i].build_id_len);
			m->build_id_len = mods[i].build_id_len;
		}
		if (mods[i].file) {
			m->has_file = 1;
			m->file = *mods[i].file;
		}
	}
	*out = s;
	return 0;
nomem:
	vgl_symbolizer_free(s);
	return -ENOMEM;
}

int vgl_symbolizer_from_reader(struct vgl_symbolizer **out,
			       const struct vgl_reader *r)
{
	struct vgl_symbolizer_module *m;
	size_t i;
	int err;

	m = calloc(r->nmodules ? r->nmodules : 1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (i = 0; i < r->nmodules; i++) {
		m[i].path = r->modules[i].path;
		m[i].build_id = r->modules[i].build_id;
		m[i].build_id_len = r->modules[i].build_id_len;
		m[i].bias = r->modules[i].bias;
		m[i].file = r->modules[i].has_file ? &r->modules[i].file : NULL;
	}
	err = vgl_symbolizer_new(out, m, r->nmodules);
	free(m);
	return err;
}

void vgl_symbolizer_free(struct vgl_symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nmods; i++) {
		struct sym_module *m = &s->mods[i];
		size_t k;

		for (k = 0; k < m->nfuncs; k++)
			if (m->funcs[k].demangled != m->funcs[k].name)
				free((char *)m->funcs[k].demangled);
		free(m->funcs);
		free(m->plt_names);
		free(m->lines);
		for (k = 0; k < m->ncus; k++)
			free(m->cus[k].rows);
		free(m->cus);
		free(m->seqs);
		if (m->cfi)
			dwarf_cfi_end(m->cfi);
		free(m->fde_starts);
		if (m->dwfl)
			dwfl_end(m->dwfl);
		if (m->elf)
			elf_end(m->elf);
		if (m->dbg_elf)
			elf_end(m->dbg_elf);
		if (m->mini_elf)
			elf_end(m->mini_elf);
		free(m->mini_buf);
		free(m->image_buf);
		if (m->fd >= 0)
			close(m->fd);
		if (m->dbg_fd >= 0)
			close(m->dbg_fd);
		free(m->path);
	}
	free(s->inl);
	free(s->inl_names);
	free(s->inl_files);
	for (i = 0; i < s->icap; i++)
		free(s->interned[i]);
	free(s->interned);
	free(s->mods);
	free(s);
}

size_t vgl_symbolizer_count(const struct vgl_symbolizer *s)
{
	return s->nmods;
}

const char *vgl_symbolizer_module_name(const struct vgl_symbolizer *s,
				       size_t mod)
{
	return mod < s->nmods ? s->mods[mod].name : NULL;
}

const char *vgl_symbolizer_module_path(const struct vgl_symbolizer *s,
				       size_t mod)
{
	return mod < s->nmods ? s->mods[mod].path : NULL;
}

uint64_t vgl_symbolizer_module_bias(const struct vgl_symbolizer *s,
				    size_t mod)
{
	return mod < s->nmods ? s->mods[mod].bias : 0;
}

/*
 * Opens path for reading without ever blocking: O_NONBLOCK keeps open()
 * of a FIFO from waiting for a writer, and anything but a regular file is
 * refused.  Returns the fd, or -1 with errno set.
 */
static int open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : ENOTREG;
		return -1;
	}
	return fd;
}

static Elf *open_elf(const char *path, int *fdp)
{
	Elf *elf;
	int fd = open_regular(path);

	*fdp = -1;
	if (fd < 0)
		return NULL;
	/* Before any other libelf call, whoever calls first (a list from
	 * /proc/PID/maps is read before any symbolizer exists). */
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		errno = ENOEXEC;
		return NULL;
	}
	*fdp = fd;
	return elf;
}

/* The GNU build-id note of elf: its length (0 when none), copied to out. */
static size_t elf_build_id(Elf *elf, uint8_t *out, size_t cap)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + noff, "GNU", 4) &&
			    nh.n_descsz <= cap) {
				memcpy(out, (char *)d->d_buf + doff, nh.n_descsz);
				return nh.n_descsz;
			}
		}
	}
	return 0;
}

int vgl_elf_file_build_id(const char *path, uint8_t *out, size_t cap)
{
	int fd;
	Elf *elf = open_elf(path, &fd);
	size_t n;

	if (!elf)
		return -errno;
	n = elf_build_id(elf, out, cap);
	elf_end(elf);
	close(fd);
	return (int)n;
}

/*
 * A copy of this process's vDSO, opened with libelf (a copy: libelf may
 * write into what it reads, and the vDSO is mapped read-only).  Its size
 * is where its section and program headers say its contents end.  NULL
 * when there is none (or out of memory).
 */
static Elf *open_vdso(void **buf)
{
	const unsigned char *base = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)base;
	const Elf64_Phdr *ph;
	size_t size, i;
	Elf *elf;

	*buf = NULL;
	if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return NULL;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	ph = (const void *)(base + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_offset + ph[i].p_filesz > size)
			size = ph[i].p_offset + ph[i].p_filesz;
	/* A vDSO is a page or two; more is no vDSO this code knows. */
	if (size < sizeof(*eh) || size > (1u << 20))
		return NULL;
	*buf = malloc(size);
	if (!*buf)
		return NULL;
	memcpy(*buf, base, size);
	elf_version(EV_CURRENT);
	elf = elf_memory(*buf, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		free(*buf);
		*buf = NULL;
		return NULL;
	}
	return elf;
}

int vgl_vdso_build_id(uint8_t *out, size_t cap)
{
	void *buf;
	Elf *elf = open_vdso(&buf);
	size_t n;

	if (!elf)
		return -ENOENT;
	n = elf_build_id(elf, out, cap);
	elf_end(elf);
	free(buf);
	return (int)n;
}

static Elf_Scn *find_section(Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	return NULL;
}

/* The section of elf named name, or NULL. */
static Elf_Scn *section_named(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* The file name in elf's .gnu_debuglink, or NULL. */
static const char *debuglink(Elf *elf)
{
	Elf_Scn *scn = section_named(elf, ".gnu_debuglink");
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	if (!d || !d->d_size || !memchr(d->d_buf, '\0', d->d_size))
		return NULL;
	return d->d_buf;
}

const char *vgl_debug_dirs(void)
{
	const char *d = getenv("VIGIL_DEBUG_DIR");

	return d && *d ? d : "/usr/lib/debug";
}

/*
 * Opens root/.build-id/xx/rest.debug for build-id bid (root: len bytes),
 * or NULL.
 */
static Elf *open_by_build_id(const char *root, size_t len, const uint8_t *bid,
			     size_t bid_len, int *fdp)
{
	char path[PATH_MAX];
	size_t i;
	int n;

	n = snprintf(path, sizeof(path), "%.*s/.build-id/%02x/", (int)len, root,
		     bid[0]);
	for (i = 1; i < bid_len && n > 0 && (size_t)n < sizeof(path) - 8; i++)
		n += snprintf(path + n, sizeof(path) - n, "%02x", bid[i]);
	if (n <= 0 || (size_t)n >= sizeof(path) - 8)
		return NULL;
	snprintf(path + n, sizeof(path) - n, ".debug");
	return open_elf(path, fdp);
}

/*
 * Finds the separate debug file of m, the way gdb and libdwfl look:
 * DEBUG/.build-id/xx/rest.debug, then the debuglink name in the file's
 * directory, its .debug/ subdirectory and under DEBUG, for each DEBUG
 * of vgl_debug_dirs() in turn.
 */
static Elf *open_debug_file(struct sym_module *m, const uint8_t *bid,
			    size_t bid_len, int *fdp)
{
	char path[PATH_MAX], dir[PATH_MAX];
	const char *link = debuglink(m->elf), *roots = vgl_debug_dirs(), *r;
	Elf *elf;
	size_t i, len;

	*fdp = -1;
	for (r = roots; bid_len > 1 && *r; r += len + (r[len] == ':')) {
		len = strcspn(r, ":");
		if (len && (elf = open_by_build_id(r, len, bid, bid_len, fdp)))
			return elf;
	}
	if (!link)
		return NULL;
	snprintf(dir, sizeof(dir), "%.*s", (int)(m->name - m->path), m->path);
	for (i = 0; i < 2; i++) {
		if (snprintf(path, sizeof(path), i ? "%s.debug/%s" : "%s%s", dir,
			     link) >= (int)sizeof(path) || !strcmp(path, m->path))
			continue;
		if ((elf = open_elf(path, fdp)))
			return elf;
	}
	for (r = roots; *r; r += len + (r[len] == ':')) {
		len = strcspn(r, ":");
		if (!len || snprintf(path, sizeof(path), "%.*s%s%s", (int)len, r,
				     dir, link) >= (int)sizeof(path))
			continue;
		if ((elf = open_elf(path, fdp)))
			return elf;
	}
	return NULL;
}

/*
 * MiniDebugInfo: the xz-compressed ELF file in m's .gnu_debugdata,
 * decompressed into m->mini_buf and opened as m->mini_elf.  Nothing when
 * there is none or it does not decompress (at most 256 MiB).
 */
static void open_mini_debuginfo(struct sym_module *m)
{
	Elf_Scn *scn = section_named(m->elf, ".gnu_debugdata");
	lzma_stream z = LZMA_STREAM_INIT;
	size_t cap = 1 << 16;
	unsigned char *out = NULL, *g;
	Elf_Data *d;
	lzma_ret ret;

	if (!scn || !(d = elf_rawdata(scn, NULL)) || !d->d_buf || !d->d_size)
		return;
	if (lzma_stream_decoder(&z, 256u << 20, 0) != LZMA_OK)
		return;
	z.next_in = d->d_buf;
	z.avail_in = d->d_size;
	do {
		if (!z.avail_out) {
			if (out && cap >= (256u << 20))
				goto fail;
			cap = out ? cap * 2 : cap;
			g = realloc(out, cap);
			if (!g)
				goto fail;
			out = g;
			z.next_out = out + z.total_out;
			z.avail_out = cap - z.total_out;
		}
		ret = lzma_code(&z, LZMA_FINISH);
	} while (ret == LZMA_OK);
	if (ret != LZMA_STREAM_END)
		goto fail;
	m->mini_elf = elf_memory((char *)out, z.total_out);
	if (!m->mini_elf || elf_kind(m->mini_elf) != ELF_K_ELF) {
		if (m->mini_elf)
			elf_end(m->mini_elf);
		m->mini_elf = NULL;
		goto fail;
	}
	m->mini_buf = out;
	lzma_end(&z);
	return;
fail:
	free(out);
	lzma_end(&z);
}

static int bind_rank(unsigned char bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

struct raw_sym {
	struct vgl_func_sym f;
	int source;             /* the table's rank: first named wins */
	int rank;
};

/* Function symbols of the tables read so far. */
struct raw_syms {
	struct raw_sym *v;
	size_t n, cap;
};

static int cmp_raw_sym(const void *a, const void *b)
{
	const struct raw_sym *x = a, *y = b;

	if (x->f.start != y->f.start)
		return x->f.start < y->f.start ? -1 : 1;
	if (x->source != y->source)
		return x->source - y->source;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->f.size != y->f.size)
		return x->f.size > y->f.size ? -1 : 1;
	return strcmp(x->f.name, y->f.name);
}

/* Adds the function symbols of table scn of elf, of rank source. */
static int add_symbols(struct raw_syms *raw, Elf *elf, Elf_Scn *scn,
		       int source)
{
	GElf_Shdr sh;
	Elf_Data *d;
	size_t n, i;

	if (!scn || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return 0;
	d = elf_getdata(scn, NULL);
	if (!d)
		return 0;
	n = d->d_size / sh.sh_entsize;
	if (raw->n + n > raw->cap) {
		size_t cap = raw->n + n;
		struct raw_sym *g = realloc(raw->v, (cap ? cap : 1) * sizeof(*g));

		if (!g)
			return -ENOMEM;
		raw->v = g;
		raw->cap = cap;
	}
	for (i = 0; i < n; i++) {
		struct raw_sym *r = &raw->v[raw->n];
		GElf_Sym sym;
		const char *name;
		int type;

		if (!gelf_getsym(d, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		r->f.start = sym.st_value;
		r->f.size = sym.st_size;
		r->f.name = name;
		r->f.demangled = NULL;
		r->source = source;
		r->rank = bind_rank(GELF_ST_BIND(sym.st_info));
		raw->n++;
	}
	return 0;
}

/* Adds m->elf's PLT stubs, NAME@plt, after every table: a symbol of
 * a table names the address first. */
static int add_plt_symbols(struct raw_syms *raw, struct sym_module *m)
{
	struct vgl_plt_stub *stubs;
	size_t n, i;
	int err = vgl_plt_stubs(m->elf, &stubs, &n, &m->plt_names);

	if (err || !n)
		return err;
	if (raw->n + n > raw->cap) {
		struct raw_sym *g = realloc(raw->v, (raw->n + n) * sizeof(*g));

		if (!g) {
			free(stubs);
			return -ENOMEM;
		}
		raw->v = g;
		raw->cap = raw->n + n;
	}
	for (i = 0; i < n; i++)
		raw->v[raw->n++] = (struct raw_sym){
			{ stubs[i].start, stubs[i].size, stubs[i].name, NULL },
			4, 0 };
	free(stubs);
	return 0;
}

/* Sorts the symbols into m->funcs, one per address: the first of each
 * run, which the sort made the first table's, then the global, then the
 * largest, then the first by name. */
static int finish_symbols(struct sym_module *m, struct raw_syms *raw)
{
	size_t i;

	qsort(raw->v, raw->n, sizeof(*raw->v), cmp_raw_sym);
	m->funcs = malloc((raw->n ? raw->n : 1) * sizeof(*m->funcs));
	if (!m->funcs)
		return -ENOMEM;
	for (i = 0; i < raw->n; i++)
		if (!m->nfuncs || m->funcs[m->nfuncs - 1].start != raw->v[i].f.start)
			m->funcs[m->nfuncs++] = raw->v[i].f;
	return 0;
}

/*
 * The CRC of elf's readable, non-writable PT_LOAD bytes, as the runtime
 * computes it from memory (vgl_format.h, struct vgl_module_file).  Returns
 * 0, or -1 for a file whose program headers cannot be read or pass its
 * end, or that holds more than 16 MiB of such bytes (the runtime's bound).
 */
static int load_crc(Elf *elf, uint32_t *out)
{
	GElf_Phdr ph;
	const char *raw;
	size_t n, i, size;
	uint64_t total = 0;
	uint32_t crc = 0;

	raw = elf_rawfile(elf, &size);
	if (!raw || elf_getphdrnum(elf, &n))
		return -1;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			return -1;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_R) ||
		    (ph.p_flags & PF_W))
			continue;
		if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
			return -1;
		total += ph.p_filesz;
		if (total > (16u << 20))
			return -1;
		crc = vgl_crc32(crc, raw + ph.p_offset, ph.p_filesz);
	}
	*out = crc;
	return 0;
}

/*
 * Whether the file open as m->fd and m->elf is, as far as can be told, the
 * one m->file describes (a module without build-id).  The same size and
 * modification time: yes, without reading it.  Else the same CRC of the
 * readable, non-writable PT_LOAD bytes (a copy, a touch): yes.  Else (a
 * rebuild, or nothing to compare): no, and *why says what differs.
 */
static int same_file(struct sym_module *m, const char **why)
{
	const struct vgl_module_file *f = &m->file;
	struct stat st;
	uint32_t crc;

	if ((f->flags & VGL_FILE_STAT) && !fstat(m->fd, &st) &&
	    (uint64_t)st.st_size == f->size &&
	    (uint64_t)st.st_mtim.tv_sec * 1000000000u +
			    (uint64_t)st.st_mtim.tv_nsec == f->mtime_ns)
		return 1;
	if (!(f->flags & VGL_FILE_CRC)) {
		*why = "another size or modification time";
		return 0;
	}
	*why = "its code differs";
	return !load_crc(m->elf, &crc) && crc == f->load_crc;
}

int vgl_file_identity(const char *path, struct vgl_module_file *out)
{
	struct stat st;
	uint32_t crc;
	Elf *elf;
	int fd;

	memset(out, 0, sizeof(*out));
	elf = open_elf(path, &fd);
	if (!elf)
		return -errno;
	if (!fstat(fd, &st)) {
		out->size = (uint64_t)st.st_size;
		out->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u +
				(uint64_t)st.st_mtim.tv_nsec;
		out->flags |= VGL_FILE_STAT;
	}
	if (!load_crc(elf, &crc)) {
		out->load_crc = crc;
		out->flags |= VGL_FILE_CRC;
	}
	elf_end(elf);
	close(fd);
	return 0;
}

/*
 * A mapping of /proc/PID/maps that is no file with symbols: shared
 * anonymous memory ("/dev/zero (deleted)", which the runtime itself maps),
 * other devices, memfds, SysV shared memory, [vdso] and the like.  A
 * sampled profile may record them as modules; their addresses are shown
 * as offsets without a warning that they cannot be read.
 */
static int pseudo_file(const char *path)
{
	static const char *const prefixes[] = {
		"[", "/dev/", "/memfd:", "/SYSV", "anon_inode:",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(path, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

static void load_module(struct sym_module *m)
{
	uint8_t bid[sizeof(m->build_id)];
	struct raw_syms raw = { NULL, 0, 0 };
	const char *what;
	size_t bid_len;
	Elf_Scn *scn;
	int err;

	m->loaded = 1;
	if (!strcmp(m->path, VGL_VDSO_PATH) && m->build_id_len) {
		/* Named from this process's vDSO when it is the same one
		 * (same build-id: the same kernel); else offsets, as for any
		 * other mapping that is no file. */
		m->elf = open_vdso(&m->image_buf);
		if (!m->elf)
			return;
	} else if (pseudo_file(m->path)) {
		return;
	} else {
		m->elf = open_elf(m->path, &m->fd);
	}
	if (!m->elf) {
		vgl_warning("%s: %s; its addresses are shown as offsets",
			    m->path, why(errno));
		return;
	}
	bid_len = elf_build_id(m->elf, bid, sizeof(bid));
	if (m->image_buf &&
	    (bid_len != m->build_id_len || memcmp(bid, m->build_id, bid_len)))
		return;         /* another kernel's vDSO */
	if (m->build_id_len &&
	    (bid_len != m->build_id_len || memcmp(bid, m->build_id, bid_len))) {
		vgl_warning("%s: build-id differs from the profiled binary's; its addresses are shown as offsets",
			    m->path);
		return;
	}
	if (!m->build_id_len && m->has_file && !same_file(m, &what)) {
		vgl_warning("%s: cannot tell whether %s is the binary that ran (it has no build-id, and the file changed since: %s); its addresses are shown as offsets",
			    m->path, m->path, what);
		return;
	}
	/* A .symtab names everything; a stripped file has what its other
	 * tables together name. */
	scn = find_section(m->elf, SHT_SYMTAB);
	if (scn) {
		err = add_symbols(&raw, m->elf, scn, 0);
	} else {
		open_mini_debuginfo(m);
		m->dbg_elf = open_debug_file(m, bid, bid_len, &m->dbg_fd);
		err = add_symbols(&raw, m->elf, find_section(m->elf, SHT_DYNSYM), 1);
		if (!err && m->mini_elf)
			err = add_symbols(&raw, m->mini_elf,
					  find_section(m->mini_elf, SHT_SYMTAB), 2);
		if (!err && m->dbg_elf)
			err = add_symbols(&raw, m->dbg_elf,
					  find_section(m->dbg_elf, SHT_SYMTAB), 3);
	}
	if (!err)
		err = add_plt_symbols(&raw, m);
	if (!err)
		err = finish_symbols(m, &raw);
	free(raw.v);
	if (err)
		goto nomem;
	m->usable = 1;
	return;
nomem:
	vgl_warning("%s: out of memory reading its symbols", m->path);
}

struct vgl_func_sym *vgl_symbolizer_func(struct vgl_symbolizer *s,
					 size_t mod, uint64_t addr)
{
	struct sym_module *m;
	size_t lo, hi;
	uint64_t a;

	if (mod >= s->nmods)
		return NULL;
	m = &s->mods[mod];
	if (!m->loaded)
		load_module(m);
	if (!m->usable || !m->nfuncs)
		return NULL;
	a = addr - m->bias;
	/* The last function that starts at or before a. */
	lo = 0;
	hi = m->nfuncs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->funcs[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lo--;
	if (m->funcs[lo].size)
		return a - m->funcs[lo].start < m->funcs[lo].size ?
		       &m->funcs[lo] : NULL;
	return &m->funcs[lo];
}

/*
 * Reads the FDEs' first addresses from .eh_frame_hdr's sorted search
 * table, in the encoding every x86-64 and AArch64 linker writes (4-byte
 * offsets from the section); another encoding leaves the table empty.
 */
static void read_fde_starts(struct sym_module *m)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx, i, n, off;
	const unsigned char *p;
	Elf_Data *d = NULL;
	int32_t v;
	uint32_t count;

	if (elf_getshdrstrndx(m->elf, &shstrndx) < 0)
		return;
	while ((scn = elf_nextscn(m->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(m->elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".eh_frame_hdr")) {
			d = elf_getdata(scn, NULL);
			break;
		}
	}
	/* version 1; eh_frame_ptr sdata4 (pc- or data-relative); count
	 * udata4; table datarel sdata4. */
	if (!d || d->d_size < 12)
		return;
	p = d->d_buf;
	if (p[0] != 1 || (p[1] & 0x0f) != DW_EH_PE_sdata4 ||
	    p[2] != DW_EH_PE_udata4 ||
	    p[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return;
	memcpy(&count, p + 8, 4);
	n = count;
	off = 12;
	if (n > (d->d_size - off) / 8)
		return;
	m->fde_starts = malloc((n ? n : 1) * sizeof(*m->fde_starts));
	if (!m->fde_starts)
		return;
	for (i = 0; i < n; i++) {
		memcpy(&v, p + off + i * 8, 4);
		m->fde_starts[i] = sh.sh_addr + (uint64_t)(int64_t)v;
	}
	m->nfde = n;
}

int vgl_symbolizer_fde_start(struct vgl_symbolizer *s, size_t mod,
			     uint64_t addr, uint64_t *start)
{
	struct sym_module *m;
	Dwarf_Frame *frame = NULL;
	uint64_t a;
	size_t lo, hi;

	if (mod >= s->nmods)
		return -ENODEV;
	m = &s->mods[mod];
	if (!m->loaded)
		load_module(m);
	if (!m->usable)
		return -ENODEV;
	if (!m->cfi_tried) {
		m->cfi_tried = 1;
		m->cfi = dwarf_getcfi_elf(m->elf);
		if (m->cfi)
			read_fde_starts(m);
	}
	a = addr - m->bias;
	/* Inside an FDE at all (libdw knows its range); FDEs never overlap,
	 * so its first address is the last one at or before a. */
	if (!m->nfde || dwarf_cfi_addrframe(m->cfi, a, &frame) || !frame)
		return -ENOENT;
	free(frame);
	lo = 0;
	hi = m->nfde;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->fde_starts[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	*start = m->fde_starts[lo - 1];
	return 0;
}

void vgl_symbolizer_place(struct vgl_symbolizer *s, size_t mod, uint64_t addr,
			  struct vgl_place *out)
{
	int e;

	memset(out, 0, sizeof(*out));
	out->module = mod;
	if (mod >= s->nmods) {
		out->kind = VGL_PLACE_ADDRESS;
		out->addr = addr;
		return;
	}
	out->sym = vgl_symbolizer_func(s, mod, addr);
	if (out->sym) {
		out->kind = VGL_PLACE_SYMBOL;
		out->addr = out->sym->start;
		return;
	}
	e = vgl_symbolizer_fde_start(s, mod, addr, &out->addr);
	if (!e) {
		out->kind = VGL_PLACE_FDE;
	} else if (e == -ENOENT) {
		out->kind = VGL_PLACE_MODULE;
		out->addr = 0;
	} else {
		/* Nothing is known of its functions: the warning about it
		 * says its addresses are shown as offsets. */
		out->kind = VGL_PLACE_OFFSET;
		out->addr = addr - s->mods[mod].bias;
	}
}

const char *vgl_place_name(struct vgl_symbolizer *s, const struct vgl_place *p,
			   char *buf, size_t len)
{
	const char *mod = p->kind == VGL_PLACE_ADDRESS ? NULL :
			  vgl_symbolizer_module_name(s, p->module);

	if (p->inlined) {
		snprintf(buf, len, "%s (inlined)", p->inlined);
		return buf;
	}
	if (p->kind == VGL_PLACE_SYMBOL)
		return vgl_func_sym_name(p->sym);
	if (p->kind == VGL_PLACE_ADDRESS && p->addr == VGL_KERNEL_ADDR)
		/* Time in the kernel, under the user frames that entered it. */
		snprintf(buf, len, "[kernel]");
	else if (p->kind == VGL_PLACE_MODULE && mod)
		snprintf(buf, len, "[%s]", mod);
	else if (mod)
		snprintf(buf, len, "%s+0x%llx", mod, (unsigned long long)p->addr);
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)p->addr);
	return buf;
}

const char *vgl_func_sym_name(struct vgl_func_sym *f)
{
	if (!f->demangled) {
		char *dem = NULL;

		if (f->name[0] == '_' && f->name[1] == 'Z')
			dem = demangle(f->name);
		f->demangled = dem ? dem : f->name;
	}
	return f->demangled;
}

/* ---- lines --------------------------------------------------------------- */

/* libdwfl's search path for debug files (lines, inlined frames): its
 * default with vgl_debug_dirs() for /usr/lib/debug. */
static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* By address; at one address an end of sequence first, so that a
 * sequence starting where another ends (main in .text.startup, right
 * after another CU's code) has its first row found, not the other's end. */
static int cmp_line(const void *a, const void *b)
{
	const struct line_row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->end != y->end)
		return x->end ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Appends cu's line rows to *rows (*n of them, room for *cap). */
static int add_cu_lines(struct vgl_symbolizer *s, Dwarf_Die *cu,
			Dwarf_Addr bias, struct line_row **rows, size_t *n,
			size_t *cap)
{
	Dwarf_Lines *lines;
	size_t nl, i;

	if (dwarf_getsrclines(cu, &lines, &nl) != 0)
		return 0;
	if (*n + nl > *cap) {
		size_t c = *cap ? *cap : 64;
		struct line_row *g;

		while (c < *n + nl)
			c *= 2;
		g = realloc(*rows, c * sizeof(*g));
		if (!g)
			return -ENOMEM;
		*rows = g;
		*cap = c;
	}
	for (i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		struct line_row *row = &(*rows)[*n];
		Dwarf_Addr addr;
		const char *src;
		bool end = false;
		int lineno = 0;

		if (!l || dwarf_lineaddr(l, &addr) != 0)
			continue;
		dwarf_lineendsequence(l, &end);
		row->addr = addr + bias;
		row->order = (uint32_t)*n & 0x7fffffffu;
		row->end = end;
		row->file = NULL;
		row->line = 0;
		if (!end) {
			src = dwarf_linesrc(l, NULL, NULL);
			if (src && dwarf_lineno(l, &lineno) == 0 && lineno > 0) {
				row->file = vgl_symbolizer_intern(s, base_name(src));
				if (!row->file)
					return -ENOMEM;
				row->line = lineno;
			}
		}
		(*n)++;
	}
	return 0;
}

/* The module's libdwfl handle, opened once; NULL when it has no DWARF
 * reader (unusable module, libdw failure). */
static Dwfl_Module *module_dwarf(struct sym_module *m)
{
	int fd;

	if (m->dwfl_tried)
		return m->dwmod;
	m->dwfl_tried = 1;
	if (!m->usable)
		return NULL;
	if (!debuginfo_path &&
	    asprintf(&debuginfo_path, ":.debug:%s", vgl_debug_dirs()) < 0)
		debuginfo_path = NULL;
	m->dwfl = dwfl_begin(&offline_callbacks);
	if (!m->dwfl)
		return NULL;
	/* libdwfl takes the descriptor; ours stays with libelf. */
	fd = dup(m->fd);
	if (fd < 0)
		return NULL;
	dwfl_report_begin(m->dwfl);
	/* Bias 0: we ask with ELF addresses, having taken off the module's. */
	m->dwmod = dwfl_report_elf(m->dwfl, m->name, m->path, fd, 0, false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->dwmod)
		close(fd);
	return m->dwmod;
}

/* Opens m's DWARF (m->dw, NULL when it has none) and says whether it has
 * .debug_aranges, which finds a CU by address (m->by_cu).  Asked once. */
static int module_aranges(struct sym_module *m)
{
	Dwfl_Module *mod;
	Dwarf_Aranges *ar;
	size_t n = 0;

	if (m->aranges_tried)
		return m->by_cu;
	m->aranges_tried = 1;
	mod = module_dwarf(m);
	if (mod)
		m->dw = dwfl_module_getdwarf(mod, &m->dwbias);
	m->by_cu = m->dw && dwarf_getaranges(m->dw, &ar, &n) == 0 && n > 0;
	return m->by_cu;
}

static int cmp_off(const void *a, const void *b)
{
	Dwarf_Off x = *(const Dwarf_Off *)a, y = *(const Dwarf_Off *)b;

	return x < y ? -1 : x > y;
}

/* The cached rows of the unit at offset off (a CU's in .debug_info, or a
 * line program's in .debug_line), a new empty slot when not read yet
 * (*fresh set); NULL without memory. */
static struct cu_rows *unit_slot(struct sym_module *m, Dwarf_Off off,
				 int *fresh)
{
	size_t lo = 0, hi = m->ncus;
	struct cu_rows *c;

	*fresh = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->cus[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->ncus && m->cus[lo].off == off)
		return &m->cus[lo];
	if (m->ncus == m->cus_cap) {
		size_t nc = m->cus_cap ? m->cus_cap * 2 : 16;

		c = realloc(m->cus, nc * sizeof(*c));
		if (!c)
			return NULL;
		m->cus = c;
		m->cus_cap = nc;
	}
	memmove(&m->cus[lo + 1], &m->cus[lo], (m->ncus - lo) * sizeof(*c));
	m->ncus++;
	c = &m->cus[lo];
	c->off = off;
	c->rows = NULL;
	c->n = 0;
	*fresh = 1;
	return c;
}

/* ---- lines without libdw: compressed debug sections ---------------------- */

/* Section name of m's DWARF file e, decompressed when it is compressed;
 * its bytes in *p and *size (NULL, 0 when there is none). */
static void raw_section(Elf *e, const char *name, const uint8_t **p,
			size_t *size)
{
	Elf_Scn *scn = section_named(e, name);
	GElf_Shdr sh;
	Elf_Data *d;

	*p = NULL;
	*size = 0;
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
		return;
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return;
	d = elf_getdata(scn, NULL);
	if (d && d->d_buf && d->d_size) {
		*p = d->d_buf;
		*size = d->d_size;
	}
}

struct seq_walk {
	struct line_seq *v;
	size_t n, cap, unit;
	int open;               /* a sequence has started */
	uint64_t start;
};

static int seq_row(void *arg, uint64_t addr, const char *file, int line,
		   int end)
{
	struct seq_walk *w = arg;

	(void)file;
	(void)line;
	if (!w->open) {
		w->open = 1;
		w->start = addr;
	}
	if (!end)
		return 0;
	w->open = 0;
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 256;
		struct line_seq *g = realloc(w->v, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		w->v = g;
		w->cap = cap;
	}
	w->v[w->n].start = w->start;
	w->v[w->n].end = addr;
	w->v[w->n].unit = w->unit;
	w->n++;
	return 0;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct line_seq *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/*
 * When m's DWARF is in compressed sections, reads its lines from
 * .debug_line ourselves (m->raw): libdw 0.188 inflates every debug
 * section when it opens such a file, 205 million instructions for
 * libc6-dbg's, where .debug_line alone is a tenth of it.  One walk over
 * the line programs notes where each sequence is (m->seqs); a lookup then
 * reads the rows of its sequence's unit, once.  Returns 1 when m's lines
 * are read that way, 0 when libdw reads them, or -ENOMEM.
 */
static int load_raw_lines(struct sym_module *m)
{
	struct seq_walk w = { NULL, 0, 0, 0, 0, 0 };
	Elf *e = NULL;
	Elf_Scn *scn;
	GElf_Shdr sh;
	size_t off = 0, next, i;
	uint64_t maxend = 0;
	int err = 0;

	if (!m->usable)
		return 0;
	if ((scn = section_named(m->elf, ".debug_line")))
		e = m->elf;
	else if (m->dbg_elf && (scn = section_named(m->dbg_elf, ".debug_line")))
		e = m->dbg_elf;
	if (!e || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED))
		return 0;
	raw_section(e, ".debug_line", &m->sec.line, &m->sec.line_size);
	raw_section(e, ".debug_line_str", &m->sec.line_str,
		    &m->sec.line_str_size);
	raw_section(e, ".debug_str", &m->sec.str, &m->sec.str_size);
	m->raw = 1;
	while (off < m->sec.line_size) {
		w.unit = off;
		w.open = 0;
		err = vgl_dwline_unit(&m->sec, off, 0, seq_row, &w, &next);
		if (err == -ENOMEM || next <= off)
			break;
		err = 0;
		off = next;
	}
	if (err == -ENOMEM) {
		free(w.v);
		return err;
	}
	if (w.n)
		qsort(w.v, w.n, sizeof(*w.v), cmp_seq);
	for (i = 0; i < w.n; i++) {
		if (w.v[i].end > maxend)
			maxend = w.v[i].end;
		w.v[i].maxend = maxend;
	}
	m->seqs = w.v;
	m->nseqs = w.n;
	return 1;
}

struct row_walk {
	struct vgl_symbolizer *s;
	struct cu_rows *c;
	size_t cap;
};

static int raw_row(void *arg, uint64_t addr, const char *file, int line,
		   int end)
{
	struct row_walk *w = arg;
	struct cu_rows *c = w->c;
	struct line_row *row;

	if (c->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct line_row *g = realloc(c->rows, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		c->rows = g;
		w->cap = cap;
	}
	row = &c->rows[c->n];
	row->addr = addr;
	row->order = (uint32_t)c->n & 0x7fffffffu;
	row->end = !!end;
	row->file = NULL;
	row->line = 0;
	/* As from libdw: a row without a file or with no line has none. */
	if (!end && file && line > 0) {
		row->file = vgl_symbolizer_intern(w->s, base_name(file));
		if (!row->file)
			return -ENOMEM;
		row->line = line;
	}
	c->n++;
	return 0;
}

/* The rows of the unit whose sequence holds ELF address a (the one that
 * starts last, should sequences overlap), read the first time; NULL when
 * none holds a. */
static struct cu_rows *raw_rows_at(struct vgl_symbolizer *s,
				   struct sym_module *m, uint64_t a, int *err)
{
	size_t lo = 0, hi = m->nseqs, next;
	struct row_walk w = { s, NULL, 0 };
	int fresh;

	*err = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->seqs[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo && m->seqs[lo - 1].maxend > a && m->seqs[lo - 1].end <= a)
		lo--;
	if (!lo || m->seqs[lo - 1].end <= a)
		return NULL;
	w.c = unit_slot(m, m->seqs[lo - 1].unit, &fresh);
	if (!w.c) {
		*err = -ENOMEM;
		return NULL;
	}
	if (fresh) {
		/* A unit that stops short keeps the rows before the fault. */
		if (vgl_dwline_unit(&m->sec, m->seqs[lo - 1].unit, 1, raw_row,
				    &w, &next) == -ENOMEM)
			*err = -ENOMEM;
		if (w.c->n)
			qsort(w.c->rows, w.c->n, sizeof(*w.c->rows), cmp_line);
	}
	return w.c;
}

/*
 * Decides how m's lines are read.  With .debug_aranges (GCC writes it;
 * libc6-dbg has it) a lookup finds its CU there and reads that CU's rows
 * only: `vigil report` of a program whose main is called from libc read
 * every CU of libc's debug file for that one call site, 0.7 billion
 * instructions of its 0.72 (the sort of all rows alone 0.21).  The CUs
 * that .debug_aranges leaves out (Clang writes none, so a Clang program
 * has entries only for the C library's start files), and every CU of a
 * module without it, are read at once into one sorted table, m->lines.
 */
static int load_lines(struct vgl_symbolizer *s, struct sym_module *m)
{
	Dwarf_Aranges *ar;
	Dwarf_Off *covered = NULL, off = 0, next;
	size_t cap = 0, nar = 0, i, hsize;
	int err = 0;

	m->lines_loaded = 1;
	err = load_raw_lines(m);
	if (err)
		return err < 0 ? err : 0;
	if (module_aranges(m) && dwarf_getaranges(m->dw, &ar, &nar) == 0) {
		if (!(covered = malloc(nar * sizeof(*covered))))
			return -ENOMEM;
		for (i = 0; i < nar; i++) {
			Dwarf_Addr a;
			Dwarf_Word len;

			covered[i] = (Dwarf_Off)-1;
			dwarf_getarangeinfo(dwarf_onearange(ar, i), &a, &len,
					    &covered[i]);
		}
		qsort(covered, nar, sizeof(*covered), cmp_off);
	}
	/* Every unit's header, a cheap read; the CU DIE and rows only of
	 * those .debug_aranges has no entry for. */
	while (m->dw && !err && dwarf_nextcu(m->dw, off, &next, &hsize, NULL,
					     NULL, NULL) == 0) {
		Dwarf_Off die = off + hsize;
		Dwarf_Die cudie;

		if ((!covered || !bsearch(&die, covered, nar, sizeof(*covered),
					  cmp_off)) &&
		    dwarf_offdie(m->dw, die, &cudie))
			err = add_cu_lines(s, &cudie, m->dwbias, &m->lines,
					   &m->nlines, &cap);
		off = next;
	}
	free(covered);
	if (err)
		return err;
	if (m->nlines)
		qsort(m->lines, m->nlines, sizeof(*m->lines), cmp_line);
	return 0;
}

/* The rows of the CU that .debug_aranges gives for ELF address a, read
 * the first time; NULL when none holds a. */
static struct cu_rows *cu_rows_at(struct vgl_symbolizer *s,
				  struct sym_module *m, uint64_t a, int *err)
{
	Dwarf_Die cu;
	struct cu_rows *c;
	size_t cap = 0;
	int fresh;

	*err = 0;
	if (a < m->dwbias || !dwarf_addrdie(m->dw, a - m->dwbias, &cu))
		return NULL;
	c = unit_slot(m, dwarf_dieoffset(&cu), &fresh);
	if (!c) {
		*err = -ENOMEM;
		return NULL;
	}
	if (fresh) {
		*err = add_cu_lines(s, &cu, m->dwbias, &c->rows, &c->n, &cap);
		if (c->n)
			qsort(c->rows, c->n, sizeof(*c->rows), cmp_line);
	}
	return c;
}

int vgl_symbolizer_line(struct vgl_symbolizer *s, size_t mod, uint64_t addr,
			const char **file, int *line)
{
	struct sym_module *m;
	const struct line_row *rows;
	size_t lo, hi;
	uint64_t a;
	int err;

	*file = NULL;
	*line = 0;
	if (mod >= s->nmods)
		return -ENOENT;
	m = &s->mods[mod];
	if (!m->loaded)
		load_module(m);
	if (!m->lines_loaded) {
		err = load_lines(s, m);
		if (err)
			return err;
	}
	a = addr - m->bias;
	rows = m->lines;
	hi = m->nlines;
	if (m->by_cu || m->raw) {
		struct cu_rows *c = m->raw ? raw_rows_at(s, m, a, &err) :
				    cu_rows_at(s, m, a, &err);

		if (err)
			return err;
		if (c) {
			rows = c->rows;
			hi = c->n;
		}
	}
	lo = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rows[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The last row at or before a, as libdw picks it; past the end of
	 * a sequence there is no line. */
	if (!lo || !rows[lo - 1].file)
		return -ENOENT;
	*file = rows[lo - 1].file;
	*line = rows[lo - 1].line;
	return 0;
}

/* ---- code and inlining, for call-site analysis --------------------------- */

int vgl_symbolizer_machine(struct vgl_symbolizer *s, size_t mod)
{
	struct sym_module *m;
	GElf_Ehdr eh;

	if (mod >= s->nmods)
		return -ENOENT;
	m = &s->mods[mod];
	if (!m->loaded)
		load_module(m);
	if (!m->usable || !gelf_getehdr(m->elf, &eh))
		return -ENOENT;
	return eh.e_machine;
}

int vgl_symbolizer_code(struct vgl_symbolizer *s, size_t mod,
			uint64_t elf_addr, size_t len, const uint8_t **bytes)
{
	struct sym_module *m;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	*bytes = NULL;
	if (mod >= s->nmods)
		return -ENOENT;
	m = &s->mods[mod];
	if (!m->loaded)
		load_module(m);
	if (!m->usable)
		return -ENOENT;
	while ((scn = elf_nextscn(m->elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || elf_addr < sh.sh_addr ||
		    elf_addr - sh.sh_addr > sh.sh_size ||
		    len > sh.sh_size - (elf_addr - sh.sh_addr))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || d->d_size != sh.sh_size)
			return -ENOENT;
		*bytes = (const uint8_t *)d->d_buf + (elf_addr - sh.sh_addr);
		return 0;
	}
	return -ENOENT;
}

/* Does the DIE tree under die hold an inlined instance of name? */
static int holds_inline(Dwarf_Die *die, const char *name, int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(die, &child) != 0)
		return 0;
	do {
		if (dwarf_tag(&child) == DW_TAG_inlined_subroutine) {
			Dwarf_Attribute at;
			Dwarf_Die origin;
			const char *n = NULL;

			if (dwarf_attr_integrate(&child, DW_AT_abstract_origin, &at) &&
			    dwarf_formref_die(&at, &origin)) {
				Dwarf_Attribute ln;

				/* The linkage name is the symbol's name in C++. */
				if (dwarf_attr_integrate(&origin, DW_AT_linkage_name, &ln))
					n = dwarf_formstring(&ln);
				if ((n && !strcmp(n, name)) ||
				    ((n = dwarf_diename(&origin)) && !strcmp(n, name)))
					return 1;
			}
		}
		if (holds_inline(&child, name, depth + 1))
			return 1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int vgl_symbolizer_inlines(struct vgl_symbolizer *s, size_t mod,
			   uint64_t host, const char *name)
{
	struct sym_module *m;
	Dwfl_Module *dm;
	Dwarf_Die cudie, *cu, *scopes = NULL;
	Dwarf_Addr bias;
	int n, i, found = 0;

	if (mod >= s->nmods)
		return 0;
	m = &s->mods[mod];
	if (!m->loaded)
		load_module(m);
	dm = module_dwarf(m);
	if (!dm)
		return 0;
	/* The CU from .debug_aranges, or, where it has none (Clang writes
	 * no entries), the first that says it holds the address. */
	bias = m->dwbias;
	if (module_aranges(m) && host - m->bias >= bias &&
	    dwarf_addrdie(m->dw, host - m->bias - bias, &cudie)) {
		cu = &cudie;
	} else {
		cu = NULL;
		while ((cu = dwfl_module_nextcu(dm, cu, &bias)))
			if (dwarf_haspc(cu, host - m->bias - bias) == 1)
				break;
		if (!cu)
			return 0;
	}
	n = dwarf_getscopes(cu, host - m->bias - bias, &scopes);
	/* The outermost subprogram around the host's first byte. */
	for (i = n - 1; i >= 0 && !found; i--)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			found = holds_inline(&scopes[i], name, 0) ? 1 : -1;
	free(scopes);
	return found > 0;
}

/* ---- inlined frames ------------------------------------------------------ */

/* The name of the function die is an instance of, demangled, interned;
 * NULL when it has none. */
static const char *origin_name(struct vgl_symbolizer *s, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *n = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &at) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at))
		n = dwarf_formstring(&at);
	if (n && n[0] == '_' && n[1] == 'Z') {
		char *dem = demangle(n);

		if (dem) {
			n = vgl_symbolizer_intern(s, dem);
			free(dem);
			return n;
		}
	}
	/* DW_AT_name through DW_AT_abstract_origin. */
	n = dwarf_diename(die);
	return n ? vgl_symbolizer_intern(s, n) : NULL;
}

/* The DIE a function's instance (out of line or inlined) is a copy of:
 * its DW_AT_abstract_origin, else the DIE itself. */
static Dwarf_Off origin_of(Dwarf_Die *die)
{
	Dwarf_Attribute at;
	Dwarf_Die o;

	if (!dwarf_attr(die, DW_AT_abstract_origin, &at) ||
	    !dwarf_formref_die(&at, &o))
		return dwarf_dieoffset(die);
	return dwarf_dieoffset(&o);
}

/*
 * Is the inlined instance in a copy of the function itself that GCC made,
 * not a call?  GCC splits a function (ipa-split: its first test stays,
 * the rest goes to F.part.0) and, when F is its part's only caller (a
 * thread's start function, whose address is taken), inlines the part
 * back: the DWARF then holds an inlined copy of F straight inside F,
 * "called" from F's own declaration line, and stacks read F;F (inlined)
 * (xz's lzma_block_encoder_init, crc64_clmul).  A recursive call
 * inlined is at a line of F's body, and stays.
 */
static int split_back(Dwarf_Die *inl, Dwarf_Off fn_origin)
{
	Dwarf_Attribute at;
	Dwarf_Word call_line, call_file, decl_file;
	Dwarf_Die o;
	int decl_line;

	/* dwarf_formudata takes the NULL of an attribute not there. */
	if (!fn_origin || origin_of(inl) != fn_origin ||
	    !dwarf_attr(inl, DW_AT_abstract_origin, &at) ||
	    !dwarf_formref_die(&at, &o) ||
	    dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &at),
			    &call_line) != 0 ||
	    dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &at),
			    &call_file) != 0 ||
	    dwarf_decl_line(&o, &decl_line) != 0 ||
	    dwarf_formudata(dwarf_attr(&o, DW_AT_decl_file, &at),
			    &decl_file) != 0)
		return 0;
	return call_line == (Dwarf_Word)decl_line && call_file == decl_file;
}

/*
 * Walks down from die through the scopes that hold pc, writing the
 * inlined instances on the way, outermost first, into out[*n .. max),
 * and the files that declare them (DW_AT_decl_file, base names; NULL:
 * not known) into files[*n .. max).
 * fn_origin is the abstract origin of the function instance die is in
 * (0: none).  Returns 1 when a function holding pc was found
 * below die.
 */
static int inline_path(struct vgl_symbolizer *s, Dwarf_Die *die, Dwarf_Addr pc,
		       Dwarf_Off fn_origin, const char **out,
		       const char **files, size_t *n, size_t max, int depth)
{
	Dwarf_Die child;

	if (depth > 256 || dwarf_child(die, &child) != 0)
		return 0;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (dwarf_haspc(&child, pc) != 1)
				break;
			if (dwarf_tag(&child) == DW_TAG_subprogram)
				fn_origin = origin_of(&child);
			if (dwarf_tag(&child) == DW_TAG_inlined_subroutine &&
			    !split_back(&child, fn_origin)) {
				const char *name = origin_name(s, &child);
				const char *file = dwarf_decl_file(&child);

				if (name && *n < max) {
					files[*n] = file ? vgl_symbolizer_intern(s,
						    base_name(file)) : NULL;
					out[(*n)++] = name;
				}
				fn_origin = origin_of(&child);
			}
			inline_path(s, &child, pc, fn_origin, out, files, n,
				    max, depth + 1);
			return 1;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			/* C++ member functions may be defined inside. */
			if (inline_path(s, &child, pc, fn_origin, out, files,
					n, max, depth + 1))
				return 1;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* Looks the inlined functions at ELF address a of m up in its DWARF,
 * innermost first, and the files declaring them. */
static size_t lookup_inlined(struct vgl_symbolizer *s, struct sym_module *m,
			     uint64_t a, const char **names,
			     const char **files, size_t max)
{
	Dwfl_Module *dm = module_dwarf(m);
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias = 0;
	size_t n = 0, i;

	if (!dm)
		return 0;
	cu = dwfl_module_addrdie(dm, a, &bias);
	if (!cu) {
		/* No .debug_aranges (Clang): ask every CU. */
		while ((cu = dwfl_module_nextcu(dm, cu, &bias)))
			if (dwarf_haspc(cu, a - bias) == 1)
				break;
		if (!cu)
			return 0;
	}
	inline_path(s, cu, a - bias, 0, names, files, &n, max, 0);
	for (i = 0; i < n / 2; i++) {
		const char *t = names[i];

		names[i] = names[n - 1 - i];
		names[n - 1 - i] = t;
		t = files[i];
		files[i] = files[n - 1 - i];
		files[n - 1 - i] = t;
	}
	return n;
}

static size_t inl_hash(size_t mod, uint64_t addr)
{
	uint64_t h = (addr ^ ((uint64_t)mod << 48)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ (h >> 29));
}

/* Makes room for one more entry in the table of looked-up addresses. */
static int inl_grow(struct vgl_symbolizer *s)
{
	size_t cap = s->inl_cap ? s->inl_cap * 2 : 1024, i, j;
	struct inl_entry *t;

	if ((s->inl_len + 1) * 2 <= s->inl_cap)
		return 0;
	t = malloc(cap * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = 0; i < cap; i++)
		t[i].mod = SIZE_MAX;
	for (i = 0; i < s->inl_cap; i++) {
		if (s->inl[i].mod == SIZE_MAX)
			continue;
		for (j = inl_hash(s->inl[i].mod, s->inl[i].addr) & (cap - 1);
		     t[j].mod != SIZE_MAX; j = (j + 1) & (cap - 1))
			;
		t[j] = s->inl[i];
	}
	free(s->inl);
	s->inl = t;
	s->inl_cap = cap;
	return 0;
}

size_t vgl_symbolizer_inlined(struct vgl_symbolizer *s, size_t mod,
			      uint64_t addr, const char **names, size_t max)
{
	return vgl_symbolizer_inlined_decl(s, mod, addr, names, NULL, max);
}

size_t vgl_symbolizer_inlined_decl(struct vgl_symbolizer *s, size_t mod,
				   uint64_t addr, const char **names,
				   const char **files, size_t max)
{
	const char *found[64], *found_files[64];
	struct sym_module *m;
	struct inl_entry *e;
	size_t j, n, i;

	if (mod >= s->nmods)
		return 0;
	m = &s->mods[mod];
	if (!m->loaded)
		load_module(m);
	if (!m->usable || inl_grow(s))
		return 0;
	for (j = inl_hash(mod, addr) & (s->inl_cap - 1); s->inl[j].mod != SIZE_MAX;
	     j = (j + 1) & (s->inl_cap - 1)) {
		e = &s->inl[j];
		if (e->mod == mod && e->addr == addr)
			goto have;
	}
	n = lookup_inlined(s, m, addr - m->bias, found, found_files,
			   sizeof(found) / sizeof(found[0]));
	if (s->inl_nnames + n > s->inl_names_cap) {
		size_t cap = s->inl_names_cap ? s->inl_names_cap : 256;
		const char **g;

		while (cap < s->inl_nnames + n)
			cap *= 2;
		g = realloc(s->inl_names, cap * sizeof(*g));
		if (!g)
			return 0;
		s->inl_names = g;
		/* The capacity grows when both arrays have it. */
		g = realloc(s->inl_files, cap * sizeof(*g));
		if (!g)
			return 0;
		s->inl_files = g;
		s->inl_names_cap = cap;
	}
	e = &s->inl[j];
	e->mod = mod;
	e->addr = addr;
	e->first = s->inl_nnames;
	e->n = n;
	if (n) {        /* no names yet: inl_names may be NULL */
		memcpy(s->inl_names + s->inl_nnames, found, n * sizeof(*found));
		memcpy(s->inl_files + s->inl_nnames, found_files,
		       n * sizeof(*found_files));
	}
	s->inl_nnames += n;
	s->inl_len++;
have:
	for (i = 0; i < e->n && i < max; i++) {
		names[i] = s->inl_names[e->first + i];
		if (files)
			files[i] = s->inl_files[e->first + i];
	}
	return i;
}

/* ---- /proc/PID/maps ------------------------------------------------------ */

int vgl_elf_load_bias(const char *path, uint64_t start, uint64_t *bias)
{
	GElf_Phdr ph;
	size_t n, i;
	Elf *elf;
	int fd, err = -ENOEXEC;

	elf = open_elf(path, &fd);
	if (!elf)
		return -errno;
	if (elf_getphdrnum(elf, &n) == 0)
		for (i = 0; i < n; i++) {
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			/* The first PT_LOAD maps file offset 0. */
			*bias = start - (ph.p_vaddr - ph.p_offset);
			err = 0;
			break;
		}
	elf_end(elf);
	close(fd);
	return err;
}

int vgl_symbolizer_from_pid(struct vgl_symbolizer **out, pid_t pid)
{
	struct vgl_symbolizer_module *mods = NULL, *g;
	size_t n = 0, cap = 0, i;
	struct vgl_maps maps;
	struct vgl_map m;
	int err;

	*out = NULL;
	err = vgl_maps_open(&maps, pid);
	if (err)
		return err;
	while (vgl_maps_next(&maps, &m)) {
		const char *file = m.path;

		if (file[0] != '/' || m.offset)
			continue;
		for (i = 0; i < n; i++)
			if (!strcmp(mods[i].path, file))
				break;
		if (i < n)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			g = realloc(mods, cap * sizeof(*g));
			if (!g) {
				err = -ENOMEM;
				goto out;
			}
			mods = g;
		}
		memset(&mods[n], 0, sizeof(mods[n]));
		if (vgl_elf_load_bias(file, m.lo, &mods[n].bias) < 0)
			continue;
		mods[n].path = strdup(file);
		if (!mods[n].path) {
			err = -ENOMEM;
			goto out;
		}
		n++;
	}
	err = vgl_symbolizer_new(out, mods, n);
out:
	vgl_maps_close(&maps);
	for (i = 0; i < n; i++)
		free((char *)mods[i].path);
	free(mods);
	return err;
}
