/*
 * symbolizer.c - see symbolizer.h.
 *
 * Symbols come from the ELF file with libelf: .symtab, or when the file is
 * stripped the .symtab of its separate debug file (found by build-id under
 * /usr/lib/debug/.build-id/, or by .gnu_debuglink next to the file, in its
 * .debug/ directory or under /usr/lib/debug), or else .dynsym.  We read the
 * table ourselves instead of asking libdwfl per address because
 * dwfl_module_addrinfo scans the whole table on every call: with 100k
 * addresses that is the quadratic cost the reports used to pay.
 *
 * Lines come from libdw (through libdwfl, which finds separate debug
 * files the standard way), every compile unit's line program copied once
 * into one array sorted by address.  We walk the CUs rather than trusting
 * .debug_aranges, which Clang does not emit: libdw would then miss every
 * Clang CU of a program that also links GCC-built objects.
 *
 * Every file is opened with O_NONBLOCK and used only if fstat calls it a
 * regular file, so a module path naming a FIFO or a device cannot block.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "maps.h"
#include "message.h"
#include "crc32.h"
#include "symbolizer.h"

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

/* From the C++ runtime (libstdc++), which the tools link. */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len,
			    int *status);

struct line_row {
	uint64_t addr;
	const char *file;       /* interned; NULL for an end of sequence */
	int line;
	uint32_t order;         /* position in the CU's program, for ties */
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
	struct vgl_func_sym *funcs;     /* sorted by start */
	size_t nfuncs;

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
};

struct vgl_symbolizer {
	struct sym_module *mods;
	size_t nmods;
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
		free(m->lines);
		if (m->cfi)
			dwarf_cfi_end(m->cfi);
		free(m->fde_starts);
		if (m->dwfl)
			dwfl_end(m->dwfl);
		if (m->elf)
			elf_end(m->elf);
		if (m->dbg_elf)
			elf_end(m->dbg_elf);
		if (m->fd >= 0)
			close(m->fd);
		if (m->dbg_fd >= 0)
			close(m->dbg_fd);
		free(m->path);
	}
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

static Elf_Scn *find_section(Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	return NULL;
}

/* The file name in elf's .gnu_debuglink, or NULL. */
static const char *debuglink(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".gnu_debuglink"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_size || !memchr(d->d_buf, '\0', d->d_size))
			return NULL;
		return d->d_buf;
	}
	return NULL;
}

/*
 * Finds the separate debug file of m, the way gdb and libdwfl look:
 * /usr/lib/debug/.build-id/xx/rest.debug, then the debuglink name in the
 * file's directory, its .debug/ subdirectory and under /usr/lib/debug.
 */
static Elf *open_debug_file(struct sym_module *m, const uint8_t *bid,
			    size_t bid_len, int *fdp)
{
	char path[PATH_MAX], dir[PATH_MAX];
	const char *link = debuglink(m->elf);
	Elf *elf;
	size_t i;
	int n;

	*fdp = -1;
	if (bid_len > 1) {
		n = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/",
			     bid[0]);
		for (i = 1; i < bid_len && n > 0 && (size_t)n < sizeof(path) - 8; i++)
			n += snprintf(path + n, sizeof(path) - n, "%02x", bid[i]);
		snprintf(path + n, sizeof(path) - n, ".debug");
		elf = open_elf(path, fdp);
		if (elf)
			return elf;
	}
	if (!link)
		return NULL;
	snprintf(dir, sizeof(dir), "%.*s", (int)(m->name - m->path), m->path);
	{
		const char *fmts[] = { "%s%s", "%s.debug/%s", "/usr/lib/debug%s%s" };

		for (i = 0; i < 3; i++) {
			if (snprintf(path, sizeof(path), fmts[i], dir, link) >=
			    (int)sizeof(path))
				continue;
			if (!strcmp(path, m->path))
				continue;
			elf = open_elf(path, fdp);
			if (elf)
				return elf;
		}
	}
	return NULL;
}

static int bind_rank(unsigned char bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

struct raw_sym {
	struct vgl_func_sym f;
	int rank;
};

static int cmp_raw_sym(const void *a, const void *b)
{
	const struct raw_sym *x = a, *y = b;

	if (x->f.start != y->f.start)
		return x->f.start < y->f.start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->f.size != y->f.size)
		return x->f.size > y->f.size ? -1 : 1;
	return strcmp(x->f.name, y->f.name);
}

/* Copies the function symbols of table scn into m->funcs, sorted. */
static int read_symbols(struct sym_module *m, Elf *elf, Elf_Scn *scn)
{
	GElf_Shdr sh;
	Elf_Data *d;
	struct raw_sym *raw;
	size_t n, i, kept = 0;

	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return 0;
	d = elf_getdata(scn, NULL);
	if (!d)
		return 0;
	n = d->d_size / sh.sh_entsize;
	raw = malloc((n ? n : 1) * sizeof(*raw));
	if (!raw)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
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
		raw[kept].f.start = sym.st_value;
		raw[kept].f.size = sym.st_size;
		raw[kept].f.name = name;
		raw[kept].f.demangled = NULL;
		raw[kept].rank = bind_rank(GELF_ST_BIND(sym.st_info));
		kept++;
	}
	qsort(raw, kept, sizeof(*raw), cmp_raw_sym);
	m->funcs = malloc((kept ? kept : 1) * sizeof(*m->funcs));
	if (!m->funcs) {
		free(raw);
		return -ENOMEM;
	}
	/* One function per address: the first of each run, which the sort
	 * made the global, then the largest, then the first by name. */
	for (i = 0; i < kept; i++)
		if (!m->nfuncs || m->funcs[m->nfuncs - 1].start != raw[i].f.start)
			m->funcs[m->nfuncs++] = raw[i].f;
	free(raw);
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
	const char *what;
	size_t bid_len;
	Elf_Scn *scn;

	m->loaded = 1;
	if (pseudo_file(m->path))
		return;
	m->elf = open_elf(m->path, &m->fd);
	if (!m->elf) {
		vgl_warning("%s: %s; its addresses are shown as offsets",
			    m->path, why(errno));
		return;
	}
	bid_len = elf_build_id(m->elf, bid, sizeof(bid));
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
	scn = find_section(m->elf, SHT_SYMTAB);
	if (scn) {
		if (read_symbols(m, m->elf, scn) < 0)
			goto nomem;
	} else {
		m->dbg_elf = open_debug_file(m, bid, bid_len, &m->dbg_fd);
		scn = m->dbg_elf ? find_section(m->dbg_elf, SHT_SYMTAB) : NULL;
		if (scn && read_symbols(m, m->dbg_elf, scn) < 0)
			goto nomem;
		if (!m->nfuncs) {
			free(m->funcs);
			m->funcs = NULL;
			scn = find_section(m->elf, SHT_DYNSYM);
			if (scn && read_symbols(m, m->elf, scn) < 0)
				goto nomem;
		}
	}
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

const char *vgl_func_sym_name(struct vgl_func_sym *f)
{
	if (!f->demangled) {
		char *dem = NULL;
		int status = -1;

		if (f->name[0] == '_' && f->name[1] == 'Z')
			dem = __cxa_demangle(f->name, NULL, NULL, &status);
		if (status == 0 && dem) {
			f->demangled = dem;
		} else {
			free(dem);
			f->demangled = f->name;
		}
	}
	return f->demangled;
}

/* ---- lines --------------------------------------------------------------- */

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static int cmp_line(const void *a, const void *b)
{
	const struct line_row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int add_cu_lines(struct vgl_symbolizer *s, struct sym_module *m,
			Dwarf_Die *cu, Dwarf_Addr bias, size_t *cap)
{
	Dwarf_Lines *lines;
	size_t n, i;

	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return 0;
	if (m->nlines + n > *cap) {
		size_t c = *cap ? *cap : 1024;
		struct line_row *g;

		while (c < m->nlines + n)
			c *= 2;
		g = realloc(m->lines, c * sizeof(*g));
		if (!g)
			return -ENOMEM;
		m->lines = g;
		*cap = c;
	}
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		struct line_row *row = &m->lines[m->nlines];
		Dwarf_Addr addr;
		const char *src;
		bool end = false;
		int lineno = 0;

		if (!l || dwarf_lineaddr(l, &addr) != 0)
			continue;
		dwarf_lineendsequence(l, &end);
		row->addr = addr + bias;
		row->order = (uint32_t)m->nlines;
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
		m->nlines++;
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

static int load_lines(struct vgl_symbolizer *s, struct sym_module *m)
{
	Dwfl_Module *mod;
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	size_t cap = 0;
	int err;

	m->lines_loaded = 1;
	mod = module_dwarf(m);
	if (!mod)
		return 0;
	while ((cu = dwfl_module_nextcu(mod, cu, &bias))) {
		err = add_cu_lines(s, m, cu, bias, &cap);
		if (err)
			return err;
	}
	if (m->nlines)
		qsort(m->lines, m->nlines, sizeof(*m->lines), cmp_line);
	return 0;
}

int vgl_symbolizer_line(struct vgl_symbolizer *s, size_t mod, uint64_t addr,
			const char **file, int *line)
{
	struct sym_module *m;
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
	lo = 0;
	hi = m->nlines;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->lines[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The last row at or before a, as libdw picks it; past the end of
	 * a sequence there is no line. */
	if (!lo || !m->lines[lo - 1].file)
		return -ENOENT;
	*file = m->lines[lo - 1].file;
	*line = m->lines[lo - 1].line;
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
	Dwarf_Die *cu, *scopes = NULL;
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
	/* Every CU is asked, not .debug_aranges (which Clang does not
	 * emit: see load_lines). */
	cu = NULL;
	while ((cu = dwfl_module_nextcu(dm, cu, &bias)))
		if (dwarf_haspc(cu, host - m->bias - bias) == 1)
			break;
	if (!cu)
		return 0;
	n = dwarf_getscopes(cu, host - m->bias - bias, &scopes);
	/* The outermost subprogram around the host's first byte. */
	for (i = n - 1; i >= 0 && !found; i--)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			found = holds_inline(&scopes[i], name, 0) ? 1 : -1;
	free(scopes);
	return found > 0;
}

/* ---- /proc/PID/maps ------------------------------------------------------ */

/* The load bias of the ELF file at path mapped at start from offset 0. */
static int bias_of(const char *path, uint64_t start, uint64_t *bias)
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
		if (bias_of(file, m.lo, &mods[n].bias) < 0)
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
