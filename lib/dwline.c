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

int vgl_dwline_unit(const struct vgl_dwline_sections *sec, size_t off,
		    int names, vgl_dwline_row_fn row, void *arg, size_t *next)
{
	struct cur c = { NULL, NULL, 1 }, h;
	struct files files = { NULL, 0, 0 };
	uint64_t len, hlen, addr = 0;
	size_t offsz = 4, i, addrsz = 8;
	unsigned version, min_len, line_range, opcode_base;
	int line_base, err = 0, v5, first = 1;
	unsigned line = 1;      /* unsigned: a bad program wraps, never UB */
	uint64_t file = 1;
	uint8_t oplen[256];

	if (!sec->line || off >= sec->line_size)
		return -ENOENT;
	c.p = sec->line + off;
	c.end = sec->line + sec->line_size;
	len = get_n(&c, 4);
	if (len == 0xffffffffu) {
		offsz = 8;
		len = get_n(&c, 8);
	}
	if (!c.ok || len > (uint64_t)(c.end - c.p)) {
		*next = sec->line_size;
		return -EINVAL;
	}
	c.end = c.p + len;
	*next = (size_t)(c.end - sec->line);
	version = (unsigned)get_n(&c, 2);
	if (version < 2 || version > 5)
		return -EINVAL;
	v5 = version >= 5;
	if (v5) {
		addrsz = (size_t)get_n(&c, 1);
		get_n(&c, 1);                       /* segment selector size */
	}
	hlen = get_n(&c, offsz);
	if (!c.ok || hlen > (uint64_t)(c.end - c.p))
		return -EINVAL;
	/* h reads the header; c the program, after it. */
	h = c;
	h.end = c.p + hlen;
	c.p = h.end;
	min_len = (unsigned)get_n(&h, 1);
	if (version >= 4)
		get_n(&h, 1);                       /* max ops per instruction */
	get_n(&h, 1);                               /* default_is_stmt */
	line_base = (int8_t)get_n(&h, 1);
	line_range = (unsigned)get_n(&h, 1);
	opcode_base = (unsigned)get_n(&h, 1);
	if (!h.ok || !line_range || !opcode_base)
		return -EINVAL;
	memset(oplen, 0, sizeof(oplen));
	for (i = 1; i < opcode_base; i++)
		oplen[i] = (uint8_t)get_n(&h, 1);
	if (!names) {
		/* The program starts after the header, whatever it holds. */
	} else if (v5) {
		/* Directories (not kept), then files, numbered from 0. */
		err = v5_table(&h, offsz, sec, NULL);
		if (!err)
			err = v5_table(&h, offsz, sec, &files);
	} else {
		while (h.ok && h.p < h.end && *h.p)
			get_str(&h);                /* include directories */
		get_n(&h, 1);
		/* Files are numbered from 1: slot 0 names none. */
		err = add_file(&files, NULL);
		while (!err && h.ok && h.p < h.end && *h.p) {
			const char *name = get_str(&h);

			get_uleb(&h);               /* directory, mtime, size */
			get_uleb(&h);
			get_uleb(&h);
			if (h.ok)
				err = add_file(&files, name);
		}
		get_n(&h, 1);
	}
	if (!err && !h.ok)
		err = -EINVAL;
	if (addrsz != 4 && addrsz != 8)
		err = -EINVAL;

	/* Without names, only a sequence's first row and its end are
	 * reported: a walk for where sequences are, at a fraction of the
	 * calls. */
#define EMIT(isend) do { \
		const char *name = !(isend) && file < files.n ? \
				   files.name[file] : NULL; \
		if (names || first || (isend)) \
			err = row(arg, addr, name, (isend) ? 0 : (int)line, \
				  (isend)); \
		first = (isend); \
	} while (0)
#define RESET() do { \
		addr = 0; file = 1; line = 1; \
	} while (0)

	while (!err && c.ok && c.p < c.end) {
		unsigned op = get_u8(&c);

		if (op >= opcode_base) {
			unsigned adj = op - opcode_base;

			addr += (uint64_t)(adj / line_range) * min_len;
			line += (unsigned)(line_base + (int)(adj % line_range));
			EMIT(0);
			continue;
		}
		switch (op) {
		case 0: {
			uint64_t elen = get_uleb(&c);
			const uint8_t *eend;
			unsigned sub;

			if (!c.ok || !elen || elen > (uint64_t)(c.end - c.p)) {
				c.ok = 0;
				break;
			}
			eend = c.p + elen;
			sub = get_u8(&c);
			if (sub == LNE_end_sequence) {
				EMIT(1);
				RESET();
			} else if (sub == LNE_set_address) {
				addr = get_n(&c, (size_t)(eend - c.p));
			} else if (sub == LNE_define_file && !v5 && names) {
				const char *name = get_str(&c);

				if (c.ok)
					err = add_file(&files, name);
			}
			c.p = eend;       /* skip what we do not read */
			break;
		}
		case LNS_copy:
			EMIT(0);
			break;
		case LNS_advance_pc:
			addr += get_uleb(&c) * min_len;
			break;
		case LNS_advance_line:
			line += (unsigned)get_sleb(&c);
			break;
		case LNS_set_file:
			file = get_uleb(&c);
			break;
		case LNS_const_add_pc:
			addr += (uint64_t)((255 - opcode_base) / line_range) *
				min_len;
			break;
		case LNS_fixed_advance_pc:
			addr += get_n(&c, 2);
			break;
		default:
			/* Standard opcodes without a row: their operands are
			 * ULEB128s, as many as the header says (set_column,
			 * set_isa and any later opcode alike). */
			for (i = 0; i < oplen[op]; i++)
				get_uleb(&c);
			break;
		}
	}
#undef EMIT
#undef RESET
	free(files.name);
	if (!err && !c.ok)
		err = -EINVAL;
	return err;
}
