/*
 * dwline.c - see dwline.h.
 *
 * Follows DWARF 5, section 6.2 (and 2 to 4 for the older headers): the
 * unit header, then the file table, then the state machine's opcodes.
 * Every read is bounded by the unit's own length, so a damaged section
 * ends the unit with -EINVAL instead of reading past it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwline.h"

/* DWARF constants (dwarf.h has them too; these few keep the module free
 * of elfutils). */
enum {
	LNS_copy = 1, LNS_advance_pc, LNS_advance_line, LNS_set_file,
	LNS_set_column, LNS_negate_stmt, LNS_set_basic_block, LNS_const_add_pc,
	LNS_fixed_advance_pc, LNS_set_prologue_end, LNS_set_epilogue_begin,
	LNS_set_isa,
	LNE_end_sequence = 1, LNE_set_address, LNE_define_file,
	LNCT_path = 1,
	FORM_block2 = 0x03, FORM_block4 = 0x04, FORM_data2 = 0x05,
	FORM_data4 = 0x06, FORM_data8 = 0x07, FORM_string = 0x08,
	FORM_block = 0x09, FORM_block1 = 0x0a, FORM_data1 = 0x0b,
	FORM_sdata = 0x0d, FORM_strp = 0x0e, FORM_udata = 0x0f,
	FORM_data16 = 0x1e, FORM_line_strp = 0x1f,
};

/* A cursor over [p, end); ok drops to 0 on any read past end. */
struct cur {
	const uint8_t *p, *end;
	int ok;
};

static uint8_t get_u8(struct cur *c)
{
	if (c->p < c->end)
		return *c->p++;
	c->ok = 0;
	return 0;
}

static uint64_t get_n(struct cur *c, size_t n)
{
	uint64_t v = 0;
	size_t i;

	if (!c->ok || (size_t)(c->end - c->p) < n) {
		c->ok = 0;
		c->p = c->end;
		return 0;
	}
	for (i = 0; i < n && i < 8; i++)
		v |= (uint64_t)c->p[i] << (8 * i);    /* little-endian (x86-64) */
	c->p += n;
	return v;
}

/* A LEB128 number, sign-extended from its last byte when sign is set. */
static uint64_t get_leb(struct cur *c, int sign)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->ok && c->p < c->end) {
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (sign && shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return v;
		}
	}
	c->ok = 0;
	return 0;
}

static uint64_t get_uleb(struct cur *c)
{
	return get_leb(c, 0);
}

static int64_t get_sleb(struct cur *c)
{
	return (int64_t)get_leb(c, 1);
}

/* A NUL-terminated string at the cursor, or NULL (and !ok) without one. */
static const char *get_str(struct cur *c)
{
	const uint8_t *nul;

	if (!c->ok || !(nul = memchr(c->p, 0, (size_t)(c->end - c->p)))) {
		c->ok = 0;
		return NULL;
	}
	const char *s = (const char *)c->p;
	c->p = nul + 1;
	return s;
}

/* The string at offset off of a string section, or NULL. */
static const char *str_at(const uint8_t *sec, size_t size, uint64_t off)
{
	if (!sec || off >= size || !memchr(sec + off, 0, size - off))
		return NULL;
	return (const char *)sec + off;
}

struct files {
	const char **name;
	size_t n, cap;
};

static int add_file(struct files *f, const char *name)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 32;
		const char **g = realloc(f->name, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		f->name = g;
		f->cap = cap;
	}
	f->name[f->n++] = name;
	return 0;
}

/*
 * One DWARF 5 entry (directory or file) of the formats given: its
 * DW_LNCT_path as a string, or NULL.  !c->ok for a form we cannot size.
 */
static const char *v5_entry(struct cur *c, const uint64_t *fmt, size_t nfmt,
			    size_t offsz, const struct vgl_dwline_sections *sec)
{
	const char *path = NULL, *s;
	size_t i;

	for (i = 0; i < nfmt && c->ok; i++) {
		uint64_t type = fmt[2 * i], form = fmt[2 * i + 1], len;

		s = NULL;
		switch (form) {
		case FORM_string:    s = get_str(c); break;
		case FORM_line_strp:
			s = str_at(sec->line_str, sec->line_str_size,
				   get_n(c, offsz));
			break;
		case FORM_strp:
			s = str_at(sec->str, sec->str_size, get_n(c, offsz));
			break;
		case FORM_udata:     get_uleb(c); break;
		case FORM_sdata:     get_sleb(c); break;
		case FORM_data1:     get_n(c, 1); break;
		case FORM_data2:     get_n(c, 2); break;
		case FORM_data4:     get_n(c, 4); break;
		case FORM_data8:     get_n(c, 8); break;
		case FORM_data16:    get_n(c, 16); break;
		case FORM_block:
		case FORM_block1:
		case FORM_block2:
		case FORM_block4:
			len = form == FORM_block ? get_uleb(c) :
			      get_n(c, form == FORM_block1 ? 1 :
					form == FORM_block2 ? 2 : 4);
			if (c->ok && len > (uint64_t)(c->end - c->p))
				c->ok = 0;
			else if (c->ok)
				c->p += len;
			break;
		default:
			c->ok = 0;   /* strx and others: no known size here */
			break;
		}
		if (type == LNCT_path)
			path = s;
	}
	return path;
}

/* Reads a DWARF 5 directory or file table (only the file names kept). */
static int v5_table(struct cur *c, size_t offsz,
		    const struct vgl_dwline_sections *sec, struct files *out)
{
	uint64_t fmt[2 * 255], count, i;
	size_t nfmt = (size_t)get_n(c, 1), k;

	for (k = 0; k < nfmt; k++) {
		fmt[2 * k] = get_uleb(c);
		fmt[2 * k + 1] = get_uleb(c);
	}
	count = get_uleb(c);
	/* Each entry takes a byte at least, when it has a format. */
	if (!nfmt && count)
		return -EINVAL;
	for (i = 0; i < count && c->ok; i++) {
		const char *name = v5_entry(c, fmt, nfmt, offsz, sec);

		if (out && c->ok && add_file(out, name) < 0)
			return -ENOMEM;
	}
	return c->ok ? 0 : -EINVAL;
}

/* Reads the include directories (skipped) and the file names of a DWARF 2
 * to 4 header, whose files are numbered from 1. */
static int v4_tables(struct cur *h, struct files *files)
{
	int err;

	while (h->ok && h->p < h->end && *h->p)
		get_str(h);                 /* include directories */
	get_n(h, 1);
	/* Files are numbered from 1: slot 0 names none. */
	err = add_file(files, NULL);
	while (!err && h->ok && h->p < h->end && *h->p) {
		const char *name = get_str(h);

		get_uleb(h);                /* directory, mtime, size */
		get_uleb(h);
		get_uleb(h);
		if (h->ok)
			err = add_file(files, name);
	}
	get_n(h, 1);
	return err;
}

/* What a unit's header says about its program. */
struct line_header {
	unsigned version;
	size_t offsz;                   /* 8 in 64-bit DWARF, else 4 */
	size_t addrsz;
	unsigned min_len, line_range, opcode_base;
	int line_base;
	uint8_t oplen[256];             /* operands of each standard opcode */
};

/* Bounds c to the unit at offset off and sets *next to the unit after it;
 * *next is the section's end when the length itself is bad. */
static int unit_extent(const struct vgl_dwline_sections *sec, size_t off,
		       struct cur *c, size_t *offsz, size_t *next)
{
	uint64_t len;

	if (!sec->line || off >= sec->line_size)
		return -ENOENT;
	c->p = sec->line + off;
	c->end = sec->line + sec->line_size;
	len = get_n(c, 4);
	if (len == 0xffffffffu) {
		*offsz = 8;
		len = get_n(c, 8);
	}
	if (!c->ok || len > (uint64_t)(c->end - c->p)) {
		*next = sec->line_size;
		return -EINVAL;
	}
	c->end = c->p + len;
	*next = (size_t)(c->end - sec->line);
	return 0;
}

/*
 * Reads the fixed fields of the unit header at c into lh.  Leaves h over
 * the rest of the header (the directory and file tables) and c at the
 * program, after the header.
 */
static int read_header(struct cur *c, struct cur *h, struct line_header *lh)
{
	uint64_t hlen;
	size_t i;

	lh->version = (unsigned)get_n(c, 2);
	if (lh->version < 2 || lh->version > 5)
		return -EINVAL;
	lh->addrsz = 8;
	if (lh->version >= 5) {
		lh->addrsz = (size_t)get_n(c, 1);
		get_n(c, 1);                /* segment selector size */
	}
	hlen = get_n(c, lh->offsz);
	if (!c->ok || hlen > (uint64_t)(c->end - c->p))
		return -EINVAL;
	*h = *c;
	h->end = c->p + hlen;
	c->p = h->end;
	lh->min_len = (unsigned)get_n(h, 1);
	if (lh->version >= 4)
		get_n(h, 1);                /* max ops per instruction */
	get_n(h, 1);                        /* default_is_stmt */
	lh->line_base = (int8_t)get_n(h, 1);
	lh->line_range = (unsigned)get_n(h, 1);
	lh->opcode_base = (unsigned)get_n(h, 1);
	if (!h->ok || !lh->line_range || !lh->opcode_base)
		return -EINVAL;
	memset(lh->oplen, 0, sizeof(lh->oplen));
	for (i = 1; i < lh->opcode_base; i++)
		lh->oplen[i] = (uint8_t)get_n(h, 1);
	return 0;
}

/* The line program's state machine: its registers, and where rows go. */
struct machine {
	const struct line_header *lh;
	struct files *files;            /* DW_LNE_define_file adds to it */
	int names;
	vgl_dwline_row_fn row;
	void *arg;
	uint64_t addr, file;
	unsigned line;          /* unsigned: a bad program wraps, never UB */
	int first;                      /* the next row starts a sequence */
};

/*
 * Reports the row the registers hold; end for the one that ends a
 * sequence.  Without names, only a sequence's first row and its end are
 * reported: a walk for where sequences are, at a fraction of the calls.
 * Inline because it runs for every row: GCC -O2 left it out of line, and
 * the whole program then took 12% longer (DWARF 5 units of vigil itself).
 */
static inline int emit(struct machine *m, int end)
{
	const char *name = !end && m->file < m->files->n ?
			   m->files->name[m->file] : NULL;
	int err = 0;

	if (m->names || m->first || end)
		err = m->row(m->arg, m->addr, name, end ? 0 : (int)m->line,
			     end);
	m->first = end;
	return err;
}

/* One extended opcode, after its 0 byte; what it does not read, it
 * skips by its length. */
static int extended_op(struct machine *m, struct cur *c)
{
	uint64_t elen = get_uleb(c);
	const uint8_t *eend;
	unsigned sub;
	int err = 0;

	if (!c->ok || !elen || elen > (uint64_t)(c->end - c->p)) {
		c->ok = 0;
		return 0;
	}
	eend = c->p + elen;
	sub = get_u8(c);
	if (sub == LNE_end_sequence) {
		err = emit(m, 1);
		m->addr = 0;
		m->file = 1;
		m->line = 1;
	} else if (sub == LNE_set_address) {
		m->addr = get_n(c, (size_t)(eend - c->p));
	} else if (sub == LNE_define_file && m->lh->version < 5 && m->names) {
		const char *name = get_str(c);

		if (c->ok)
			err = add_file(m->files, name);
	}
	c->p = eend;
	return err;
}

/* One standard opcode (1 to opcode_base - 1) and its operands. */
static int standard_op(struct machine *m, struct cur *c, unsigned op)
{
	const struct line_header *lh = m->lh;
	size_t i;

	switch (op) {
	case LNS_copy:
		return emit(m, 0);
	case LNS_advance_pc:
		m->addr += get_uleb(c) * lh->min_len;
		break;
	case LNS_advance_line:
		m->line += (unsigned)get_sleb(c);
		break;
	case LNS_set_file:
		m->file = get_uleb(c);
		break;
	case LNS_const_add_pc:
		m->addr += (uint64_t)((255 - lh->opcode_base) /
				      lh->line_range) * lh->min_len;
		break;
	case LNS_fixed_advance_pc:
		m->addr += get_n(c, 2);
		break;
	default:
		/* Standard opcodes without a row: their operands are
		 * ULEB128s, as many as the header says (set_column,
		 * set_isa and any later opcode alike). */
		for (i = 0; i < lh->oplen[op]; i++)
			get_uleb(c);
		break;
	}
	return 0;
}

/* Runs the program at c to the unit's end or its first error: what row
 * returned, -ENOMEM, or -EINVAL at the first byte it cannot read. */
static int run_program(struct machine *m, struct cur *c)
{
	const struct line_header *lh = m->lh;
	int err = 0;

	while (!err && c->ok && c->p < c->end) {
		unsigned op = get_u8(c);

		if (op >= lh->opcode_base) {
			/* A special opcode: both registers move, and a row. */
			unsigned adj = op - lh->opcode_base;

			m->addr += (uint64_t)(adj / lh->line_range) *
				   lh->min_len;
			m->line += (unsigned)(lh->line_base +
					      (int)(adj % lh->line_range));
			err = emit(m, 0);
		} else if (op == 0) {
			err = extended_op(m, c);
		} else {
			err = standard_op(m, c, op);
		}
	}
	if (!err && !c->ok)
		err = -EINVAL;
	return err;
}

int vgl_dwline_unit(const struct vgl_dwline_sections *sec, size_t off,
		    int names, vgl_dwline_row_fn row, void *arg, size_t *next)
{
	struct cur c = { NULL, NULL, 1 }, h;
	struct files files = { NULL, 0, 0 };
	struct line_header lh = { .offsz = 4 };
	struct machine m = {
		.lh = &lh, .files = &files, .names = names, .row = row,
		.arg = arg, .file = 1, .line = 1, .first = 1,
	};
	int err;

	err = unit_extent(sec, off, &c, &lh.offsz, next);
	if (err)
		return err;
	err = read_header(&c, &h, &lh);
	if (err)
		return err;
	if (!names) {
		/* The program starts after the header, whatever it holds. */
	} else if (lh.version >= 5) {
		/* Directories (not kept), then files, numbered from 0. */
		err = v5_table(&h, lh.offsz, sec, NULL);
		if (!err)
			err = v5_table(&h, lh.offsz, sec, &files);
	} else {
		err = v4_tables(&h, &files);
	}
	if (!err && !h.ok)
		err = -EINVAL;
	if (lh.addrsz != 4 && lh.addrsz != 8)
		err = -EINVAL;
	if (!err)
		err = run_program(&m, &c);
	free(files.name);
	return err;
}
