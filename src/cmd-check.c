/*
 * cmd-check.c - `vigil check PROG...`: is PROG instrumented, and are the
 * hooks its instrumentation calls vigil's?
 *
 * A program can look fine and still never write a profile: compiled
 * without -finstrument-functions, or instrumented but linked so that its
 * hooks are the C library's no-ops (gcc -flto used to do that with an
 * archive the linker had already passed).  Such a program runs, exits 0
 * and leaves no file, and nothing in it can say so, because vigil's
 * runtime is not in it.  This command reads the ELF file instead:
 *
 *   instrumented   __cyg_profile_func_enter is undefined (bound at run
 *                  time), or defined here and called: on x86-64 a direct
 *                  `call rel32` to it, which is how GCC and Clang call it
 *                  once the linker has resolved it in an executable; or,
 *                  linked with --wrap (vigil's hook is an IFUNC, see
 *                  runtime/hooks.c), to __wrap___cyg_profile_func_enter.
 *   vigil's hooks  defined here next to vigil's runtime (its public API
 *                  symbol vigil_snapshot, or, in a stripped file, the
 *                  .vgl magic the runtime writes: with the hook defined,
 *                  since the vigil tool has the magic and no hook), or
 *                  undefined in a file that needs libvigil.so.  An
 *                  instrumented shared library without either takes the
 *                  hooks of the program that loads it, which is how
 *                  vigil means them to be built.
 *
 * The same for the entry mode (`pkg-config --cflags vigil-entry`, GCC's
 * -pg -mfentry given to the compiler proper only): its functions call
 * __fentry__ first thing, vigil's runtime defines it (exported, no IFUNC)
 * and the executable's calls go to __wrap___fentry__, found in a stripped
 * program from __fentry__ and the runtime's .vigil.fentry section (the
 * distance between the two).  A program whose link saw
 * -pg has gprof's start file gcrt1.o (__gmon_start__ defined, calling
 * __monstartup): it writes gmon.out at exit, which vigil's flags are made
 * never to do, so that is a bad program whatever its hooks.  So is one
 * where a caller keeps a value in r10 or r11 across a call of an
 * entry-instrumented function, which __fentry__ changes (scan_scratch).
 * And so is one built partly with the flags, some of its objects without
 * any counting site: their calls are in no profile (scan_partial).
 *
 * Everything is read through libelf, which checks the file's offsets and
 * sizes; the call scan reads only section data libelf handed out.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "callsite.h"
#include "vgl_format.h"
#include "message.h"
#include "text.h"
#include "cli.h"
#include "sampler.h"

const char cmd_check_usage[] =
	"usage: vigil check PROG...\n"
	"       vigil check -p PID\n"
	"\n"
	"With -p (--pid), reads the running process PID instead: whether it\n"
	"is an ondemand program (built with vigil-ondemand), started idle or\n"
	"counting from its start (VIGIL_FILE), and how many of its counting\n"
	"sites are idle and how many on now (switched on live by `vigil\n"
	"attach --scan counts`).  Nothing in the process is changed.  Exits 1\n"
	"when PID is no ondemand program or cannot be read.\n"
	"\n"
	"Reads each program (or shared library) and says whether it is\n"
	"instrumented (compiled with -finstrument-functions: it calls\n"
	"__cyg_profile_func_enter) and whether those calls reach vigil's\n"
	"runtime, linked in (libvigil.a) or needed (libvigil.so).  A good one\n"
	"gets one line on stdout, e.g. 'prog: instrumented, with vigil's\n"
	"runtime linked in'.  Otherwise one line on stderr gives the reason -\n"
	"not instrumented; instrumented but the hooks are not vigil's (for\n"
	"instance the C library's no-ops); stripped so that it cannot tell;\n"
	"not an ELF file; cannot be opened; linked with gprof's gcrt1.o, which\n"
	"writes gmon.out - and the exit status is 1.  Entry counting (built\n"
	"with `pkg-config --cflags vigil-entry`: functions call __fentry__)\n"
	"is recognised as well, and its lines say 'entry counting'\n"
	"('ondemand counting' for `pkg-config vigil-ondemand`: its calls of\n"
	"__fentry__ listed in __mcount_loc, made idle before main unless\n"
	"VIGIL_FILE is set; bad when linked without that part); such a\n"
	"program is bad if a caller keeps a value in r10 or r11 across a\n"
	"call of an instrumented function (one that keeps every register,\n"
	"no_caller_saved_registers): its line names both.  An\n"
	"instrumented shared library without vigil's runtime is good: its\n"
	"hooks are those of the program that loads it.  A program built\n"
	"partly with vigil's flags is bad too, since the calls of its other\n"
	"functions are in no profile: its line says 'partly instrumented',\n"
	"how many of its own functions (vigil's runtime and the C library's\n"
	"start-up code aside) carry no counting site, and names up to ten,\n"
	"by source file (from the debug information, or the symbol table's\n"
	"FILE symbols).  Functions left out on purpose in a file built with\n"
	"the flags (no_instrument_function, -finstrument-functions-exclude-*)\n"
	"are not counted.  In a -static program, where the C library's\n"
	"functions are linked in too, only functions with debug information\n"
	"are looked at (none without it).  Calls are found on x86-64, the\n"
	"machine vigil's runtime counts on.\n";

#define HOOK "__cyg_profile_func_enter"
#define WRAP "__wrap___cyg_profile_func_enter"
#define VIGIL_SYM "vigil_snapshot"
#define FENTRY "__fentry__"
#define FENTRY_WRAP "__wrap___fentry__"
#define GMON_START "__gmon_start__"
#define ONDEMAND_SYM "vgl_ondemand_module"
/* What vigil-mcount-rw.o calls for an object built with Clang. */
#define ONDEMAND_CLANG_SYM "vgl_ondemand_clang"

struct elf_facts {
	int program;            /* an executable, not a shared library */
	int has_syms;           /* a symbol table with at least one entry */
	int hook_defined;       /* HOOK defined in this file, at hook_addr */
	GElf_Addr hook_addr;
	int hook_ifunc;         /* HOOK is an IFUNC (vigil's since 6.11) */
	GElf_Addr wrap_addr;    /* WRAP, where calls go with --wrap; or 0 */
	int64_t wrap_delta;     /* WRAP - resolver, from .vigil.hook */
	int has_delta;
	int64_t fentry_delta;   /* FENTRY_WRAP - FENTRY, from .vigil.fentry */
	int has_fentry_delta;
	int hook_plt;           /* an IRELATIVE slot resolves the hook: calls
	                         * go through the PLT (no --wrap) */
	int hook_undef;         /* HOOK referenced, defined elsewhere */
	int vigil_api;          /* VIGIL_SYM defined in this file */
	int vigil_magic;        /* VGL_MAGIC in an allocated section */
	int needs_libvigil;     /* DT_NEEDED libvigil.so */
	unsigned long calls;    /* direct calls of the defined HOOK */
	int fentry_defined;     /* FENTRY defined here, at fentry_addr */
	GElf_Addr fentry_addr;
	GElf_Addr fentry_wrap;  /* FENTRY_WRAP, or 0 */
	int fentry_undef;       /* FENTRY referenced, defined elsewhere */
	unsigned long fentry_calls; /* direct calls of FENTRY or its wrap */
	unsigned long fentry_wrap_calls; /* of the wrap alone */
	int interp;             /* PT_INTERP: a dynamic program */
	int gmon_start;         /* GMON_START defined: gcrt1.o linked in */
	int mcount_loc;         /* a non-empty __mcount_loc: the calls of
	                         * FENTRY listed (-mrecord-mcount) */
	int ondemand_rt;        /* ONDEMAND_SYM defined: the runtime's part
	                         * that makes them idle (runtime/ondemand.c) */
	int patchable;          /* a non-empty __patchable_function_entries:
	                         * Clang's nops at each function's start */
	int clang_od;           /* ONDEMAND_CLANG_SYM named: vigil-mcount-rw.o,
	                         * which hands them to the runtime */
	/* A caller that keeps a value in r10 or r11 across its call of an
	 * entry-instrumented function (scan_scratch), and how many. */
	unsigned long keeps;
	struct vgl_scratch_use keep;
	char keep_caller[128], keep_callee[128];
	/* The program's own functions (scan_partial), and how many of them
	 * carry no counting site; those named, by object, in bare. */
	unsigned long own_fns, bare_fns;
	char bare[2048];
};

/* Records what the symbol table in scn says about HOOK and VIGIL_SYM. */
static void scan_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			 struct elf_facts *f)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n;
	GElf_Sym sym;
	const char *name;

	if (!d || !sh->sh_entsize)
		return;
	n = sh->sh_size / sh->sh_entsize;
	if (n > 1)
		f->has_syms = 1;
	for (i = 1; i < n; i++) {
		if (!gelf_getsym(d, (int)i, &sym))
			break;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name)
			continue;
		if (!strcmp(name, HOOK)) {
			if (sym.st_shndx != SHN_UNDEF) {
				f->hook_defined = 1;
				f->hook_addr = sym.st_value;
				f->hook_ifunc = GELF_ST_TYPE(sym.st_info) ==
						STT_GNU_IFUNC;
			} else {
				f->hook_undef = 1;
			}
		} else if (!strcmp(name, WRAP) &&
			   sym.st_shndx != SHN_UNDEF) {
			f->wrap_addr = sym.st_value;
		} else if (!strcmp(name, VIGIL_SYM) &&
			   sym.st_shndx != SHN_UNDEF) {
			f->vigil_api = 1;
		} else if (!strcmp(name, FENTRY)) {
			if (sym.st_shndx != SHN_UNDEF) {
				f->fentry_defined = 1;
				f->fentry_addr = sym.st_value;
			} else {
				f->fentry_undef = 1;
			}
		} else if (!strcmp(name, FENTRY_WRAP) &&
			   sym.st_shndx != SHN_UNDEF) {
			f->fentry_wrap = sym.st_value;
		} else if (!strcmp(name, GMON_START) &&
			   sym.st_shndx != SHN_UNDEF) {
			f->gmon_start = 1;
		} else if (!strcmp(name, ONDEMAND_SYM) &&
			   sym.st_shndx != SHN_UNDEF) {
			f->ondemand_rt = 1;
		} else if (!strcmp(name, ONDEMAND_CLANG_SYM)) {
			f->clang_od = 1;
		}
	}
}

/* Records whether the dynamic section names libvigil.so as needed and
 * whether it marks the file as a position-independent executable. */
static void scan_dynamic(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			 struct elf_facts *f)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n;
	GElf_Dyn dyn;
	const char *name;

	if (!d || !sh->sh_entsize)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE))
			f->program = 1;
		if (dyn.d_tag != DT_NEEDED)
			continue;
		name = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val);
		if (name && !strncmp(name, "libvigil.so", 11))
			f->needs_libvigil = 1;
	}
}

/*
 * Counts `call rel32` (E8) instructions in scn whose target is the hook,
 * or __fentry__ (GCC's `call *__fentry__@GOTPCREL(%rip)` becomes
 * `addr32 call rel32`, 67 E8, once the linker finds it defined here).
 * The scan is bytewise, so an E8 inside another instruction can be taken
 * for a call, but it would also have to encode exactly the hook's distance
 * to count: a miscount of a program with no call at all is not a concern.
 */
static void scan_calls(Elf_Scn *scn, const GElf_Shdr *sh,
		       struct elf_facts *f)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	const unsigned char *p;
	size_t i, n;
	int32_t rel;

	if (!d || !d->d_buf)
		return;
	p = d->d_buf;
	n = d->d_size;
	for (i = 0; i + 5 <= n; i++) {
		if (p[i] != 0xe8)
			continue;
		GElf_Addr to;

		memcpy(&rel, p + i + 1, 4);
		to = sh->sh_addr + i + 5 + (GElf_Addr)(int64_t)rel;
		if (f->hook_defined && (to == f->hook_addr ||
					(f->wrap_addr && to == f->wrap_addr)))
			f->calls++;
		if (f->fentry_defined && (to == f->fentry_addr ||
					  (f->fentry_wrap && to == f->fentry_wrap)))
			f->fentry_calls++;
		if (f->fentry_defined && f->fentry_wrap && to == f->fentry_wrap)
			f->fentry_wrap_calls++;
	}
}

/*
 * Callers that keep a value in r10 or r11 across a call of a function
 * built for entry counting.  __fentry__'s fast path changes r10 and r11
 * before the callee's first instruction, which the ABI allows, except
 * for a callee that keeps every register for its callers
 * (no_caller_saved_registers, interrupt-style handlers, code built with
 * -mgeneral-regs-only): Clang then keeps values there across its calls
 * (GCC under -p spills them), and the program computes something else
 * (issue 28, point 14).  The fast path cannot tell such a callee (it
 * would cost every call), so this command names it.  The functions and
 * their code come from the symbol table (.symtab); a function is entry-
 * instrumented when its first instruction (after an endbr64) is a direct
 * call of __fentry__ (or of anything, where __fentry__ is not defined
 * here: a PLT slot).  Capstone decodes each function; without it, or
 * stripped, nothing is found.
 */
struct fn_sym {
	GElf_Addr start, size;
	const char *name;
	const unsigned char *code;  /* in the section's data */
	const char *file;           /* the FILE symbol before a local one */
	long group;                 /* which FILE symbol's; -1 for none */
};

struct fn_list {
	struct fn_sym *v;
	size_t n, cap;
	GElf_Addr *inst;            /* entry-instrumented starts, sorted */
	size_t ninst;
};

static int addr_cmp(const void *a, const void *b)
{
	GElf_Addr x = *(const GElf_Addr *)a, y = *(const GElf_Addr *)b;

	return x < y ? -1 : x > y;
}

static int is_instrumented(void *arg, uint64_t to)
{
	struct fn_list *l = arg;

	return bsearch(&to, l->inst, l->ninst, sizeof(*l->inst),
		       addr_cmp) != NULL;
}

/* Whether code (n bytes at addr) starts with a call of __fentry__. */
static int calls_fentry_first(const unsigned char *p, GElf_Addr n,
			      GElf_Addr addr, const struct elf_facts *f)
{
	GElf_Addr at = 0, to;
	int32_t rel;

	if (n >= 4 && p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e &&
	    p[3] == 0xfa)
		at = 4;
	if (at + 1 <= n && p[at] == 0x67)
		at++;
	if (at + 5 > n || p[at] != 0xe8) {
		/* call *__fentry__@GOTPCREL(%rip), not relaxed */
		return !f->fentry_defined && at + 6 <= n && p[at] == 0xff &&
		       p[at + 1] == 0x15;
	}
	if (!f->fentry_defined)
		return 1;
	memcpy(&rel, p + at + 1, 4);
	to = addr + at + 5 + (GElf_Addr)(int64_t)rel;
	return to == f->fentry_addr || (f->fentry_wrap && to == f->fentry_wrap);
}

static const char *fn_name(const struct fn_list *l, GElf_Addr start)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].start == start)
			return l->v[i].name;
	return "?";
}

/* Collects the function symbols of the symbol table scn whose code is in
 * an executable section, with their code.  The linker keeps each input
 * object's local symbols together, after a FILE symbol naming its source
 * (an empty name starts the hidden symbols it made local); a local
 * function gets that name as its file, a global one none. */
static int collect_functions(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			     struct fn_list *l)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n;
	GElf_Sym sym;
	const char *file = NULL;
	long group = -1;

	if (!d || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n; i++) {
		Elf_Scn *cs;
		GElf_Shdr csh;
		Elf_Data *cd;
		const char *name;

		if (!gelf_getsym(d, (int)i, &sym))
			break;
		if (GELF_ST_TYPE(sym.st_info) == STT_FILE) {
			file = elf_strptr(elf, sh->sh_link, sym.st_name);
			if (file && !*file)
				file = NULL;
			group = file ? (long)i : -1;
			continue;
		}
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		cs = elf_getscn(elf, sym.st_shndx);
		if (!name || !cs || !gelf_getshdr(cs, &csh) ||
		    csh.sh_type != SHT_PROGBITS ||
		    !(csh.sh_flags & SHF_EXECINSTR) ||
		    sym.st_value < csh.sh_addr ||
		    sym.st_value - csh.sh_addr > csh.sh_size ||
		    sym.st_size > csh.sh_size - (sym.st_value - csh.sh_addr))
			continue;
		cd = elf_getdata(cs, NULL);
		if (!cd || !cd->d_buf || cd->d_size < csh.sh_size)
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 256;
			struct fn_sym *v = realloc(l->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			l->v = v;
			l->cap = cap;
		}
		l->v[l->n].start = sym.st_value;
		l->v[l->n].size = sym.st_size;
		l->v[l->n].name = name;
		l->v[l->n].code = (const unsigned char *)cd->d_buf +
				  (sym.st_value - csh.sh_addr);
		l->v[l->n].file = GELF_ST_BIND(sym.st_info) == STB_LOCAL ?
				  file : NULL;
		l->v[l->n].group = l->v[l->n].file ? group : -1;
		l->n++;
	}
	return 0;
}

static void scan_scratch(Elf *elf, struct elf_facts *f)
{
	struct fn_list l = { 0 };
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t i;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB &&
		    collect_functions(elf, scn, &sh, &l) < 0)
			goto out;
	if (!l.n || !(l.inst = malloc(l.n * sizeof(*l.inst))))
		goto out;
	for (i = 0; i < l.n; i++)
		if (calls_fentry_first(l.v[i].code, l.v[i].size, l.v[i].start,
				       f))
			l.inst[l.ninst++] = l.v[i].start;
	if (!l.ninst)
		goto out;
	qsort(l.inst, l.ninst, sizeof(*l.inst), addr_cmp);
	for (i = 0; i < l.n; i++) {
		struct vgl_scratch_use use;
		int r = vgl_code_keeps_scratch(l.v[i].code, l.v[i].size,
					       l.v[i].start, is_instrumented,
					       &l, &use);

		if (r < 0)
			break;   /* no capstone: nothing to say */
		if (r == 1 && !f->keeps++) {
			f->keep = use;
			snprintf(f->keep_caller, sizeof(f->keep_caller), "%s",
				 l.v[i].name);
			snprintf(f->keep_callee, sizeof(f->keep_callee), "%s",
				 fn_name(&l, use.target));
		}
	}
out:
	free(l.inst);
	free(l.v);
}

/* Whether sh is the section called name. */
static int section_is(Elf *elf, const GElf_Shdr *sh, const char *name)
{
	size_t shstrndx;
	const char *s;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	s = elf_strptr(elf, shstrndx, sh->sh_name);
	return s && !strcmp(s, name);
}

/*
 * Partly instrumented (issue 31, point 4): a build whose flags missed some
 * objects (`make CPPFLAGS=...` on the command line replaces a Makefile's
 * own CPPFLAGS, and a directory with its own Makefile may drop them) makes
 * a program that calls the hook, so it passes for instrumented, and whose
 * other functions are simply missing from every profile.  So each of the
 * program's own functions is looked at: in the entry mode, is its first
 * instruction the call of __fentry__ (calls_fentry_first); in the inline
 * mode, does it call the hook (its entry call, anywhere in its code, as
 * scan_calls finds them; through the hook's PLT entry or GOT slot in a
 * file that leaves the hook to another object, find_hook_plt).
 *
 * The program's own are its function symbols less what every link brings:
 * the C library's start files and helpers (names reserved to the
 * implementation: "__x", "_X", and the few others of the start files and
 * of libc_nonshared.a: startup_name), the split-off cold parts of functions (".cold"), and vigil's
 * runtime, which is never instrumented.  The runtime's functions are known
 * by name (rt-names.h, made from the runtime's objects by the Makefile):
 * a global one's name is the program's only definition of it, a local one
 * must also sit under the FILE symbol of one of the runtime's objects
 * (mark_runtime).  In
 * a -static program, the C library's own functions are linked in too, and
 * only the debug information tells them apart (Debian's libc.a has none):
 * there only functions in a compilation unit count, and without debug
 * information nothing is said.  Each function's object is its compilation
 * unit's file name, or else its FILE symbol (a global function without
 * debug information has none).  A partial build leaves out whole objects:
 * an object with a counting site was built with the flags, and its
 * functions without one were left out on purpose (no_instrument_function,
 * -finstrument-functions-exclude-file-list=, as README advises for
 * CPython), so they are not counted at all (keep_partial).
 */
#include "rt-names.h"

struct cu_range {
	GElf_Addr lo, hi;
	const char *name;           /* in the Dwarf's data */
};

struct cu_list {
	struct cu_range *v;
	size_t n, cap;
};

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int in_names(const char *name, const char *const *v, size_t n)
{
	return name && bsearch(&name, v, n, sizeof(*v), str_cmp) != NULL;
}

#define NAMES(v) (sizeof(v) / sizeof((v)[0]))

static int cu_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The address ranges of every compilation unit in dw, sorted. */
static int collect_cus(Dwarf *dw, struct cu_list *c)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die die;
	uint8_t unit_type;
	Dwarf_Half version;

	while (dwarf_get_units(dw, cu, &cu, &version, &unit_type, &die,
			       NULL) == 0) {
		const char *name = dwarf_diename(&die);
		Dwarf_Addr base, lo, hi;
		ptrdiff_t o = 0;

		if (unit_type != DW_UT_compile || !name)
			continue;
		while ((o = dwarf_ranges(&die, o, &base, &lo, &hi)) > 0) {
			if (lo >= hi)
				continue;
			if (c->n == c->cap) {
				size_t cap = c->cap ? 2 * c->cap : 64;
				struct cu_range *v = realloc(c->v,
							     cap * sizeof(*v));

				if (!v)
					return -ENOMEM;
				c->v = v;
				c->cap = cap;
			}
			c->v[c->n].lo = lo;
			c->v[c->n].hi = hi;
			c->v[c->n].name = name;
			c->n++;
		}
	}
	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), cu_cmp);
	return 0;
}

/* The file name (without its directories) of the unit holding addr. */
static const char *cu_of(const struct cu_list *c, GElf_Addr addr)
{
	size_t lo = 0, hi = c->n, i;
	const char *slash;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->v[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges of units may nest or overlap (rarely): look back a little. */
	for (i = lo; i-- > 0 && lo - i <= 8;)
		if (addr >= c->v[i].lo && addr < c->v[i].hi) {
			slash = strrchr(c->v[i].name, '/');
			return slash ? slash + 1 : c->v[i].name;
		}
	return NULL;
}

static int is_rt_name(const char *name)
{
	return in_names(name, rt_function_names, NAMES(rt_function_names));
}

/*
 * Marks in rt[i] whether l's function i is one of the runtime's: a local
 * one when the object of its FILE symbol is the runtime's, which it is
 * when that symbol names one of the runtime's sources and more than half
 * of the object's functions have the names of the runtime's.  Not all: a
 * runtime a little older or newer than this command, with a function more
 * or less, is still the runtime; and a file of the program's own that
 * shares a name with one of the runtime's (init.c, module.c) and a
 * function name or two is still the program's.  A global (or hidden) one
 * when it has the name of one of the runtime's: a link has one definition
 * of a name.  An object's local functions are together in l, as in the
 * symbol table.
 */
static void mark_runtime(const struct fn_list *l, char *rt)
{
	size_t i, j, k, n, named;
	int ours;

	for (i = 0; i < l->n; i = j) {
		if (!l->v[i].file) {
			rt[i] = (char)is_rt_name(l->v[i].name);
			j = i + 1;
			continue;
		}
		ours = in_names(l->v[i].file, rt_file_names,
				NAMES(rt_file_names));
		for (j = i, n = named = 0; j < l->n &&
		     l->v[j].group == l->v[i].group; j++, n++)
			named += is_rt_name(l->v[j].name);
		for (k = i; k < j; k++)
			rt[k] = (char)(ours && 2 * named > n);
	}
}

/* Whether name is the C library's or the compiler's, in every link: the
 * start files' (crt1.o, crti.o, crtbegin.o) and libc_nonshared.a's. */
static int startup_name(const char *name)
{
	static const char *const own[] = {
		"_dl_relocate_static_pie", "_fini", "_init", "_start",
		"at_quick_exit", "atexit", "deregister_tm_clones",
		"frame_dummy", "pthread_atfork", "register_tm_clones",
	};
	size_t i;

	if (name[0] == '_' && (name[1] == '_' ||
			       (name[1] >= 'A' && name[1] <= 'Z')))
		return 1;
	for (i = 0; i < NAMES(own); i++)
		if (!strcmp(name, own[i]))
			return 1;
	return 0;
}

/*
 * Where a file that leaves the hook to another object (a shared library,
 * a program with libvigil.so) calls it: *got, its GOT slot (from the
 * relocation that fills it), and *plt, the PLT entry that jumps through
 * that slot (`jmp *slot(%rip)`, in an entry of the section's entry size).
 * Returns 0 when there is no slot.
 */
static int find_hook_plt(Elf *elf, GElf_Addr *got, GElf_Addr *plt)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	*got = *plt = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		Elf_Scn *ss;
		GElf_Shdr ssh;
		Elf_Data *sd;
		GElf_Rela r;
		GElf_Sym sym;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !sh.sh_entsize || !d ||
		    !(ss = elf_getscn(elf, sh.sh_link)) ||
		    !gelf_getshdr(ss, &ssh) || !(sd = elf_getdata(ss, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n && !*got; i++) {
			const char *name;
			unsigned type;

			if (!gelf_getrela(d, (int)i, &r))
				break;
			type = GELF_R_TYPE(r.r_info);
			if ((type != R_X86_64_JUMP_SLOT &&
			     type != R_X86_64_GLOB_DAT) ||
			    !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym))
				continue;
			name = elf_strptr(elf, ssh.sh_link, sym.st_name);
			if (name && !strcmp(name, HOOK))
				*got = r.r_offset;
		}
	}
	if (!*got)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		const unsigned char *p;
		GElf_Addr i, es, at;
		int32_t rel;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !d || !d->d_buf ||
		    d->d_size < sh.sh_size ||
		    !(section_is(elf, &sh, ".plt") ||
		      section_is(elf, &sh, ".plt.sec") ||
		      section_is(elf, &sh, ".plt.got")))
			continue;
		p = d->d_buf;
		es = sh.sh_entsize ? sh.sh_entsize : 16;
		for (i = 0; i + 6 <= sh.sh_size; i++) {
			if (p[i] != 0xff || p[i + 1] != 0x25)
				continue;
			memcpy(&rel, p + i + 2, 4);
			at = sh.sh_addr + i + 6 + (GElf_Addr)(int64_t)rel;
			if (at == *got) {
				*plt = sh.sh_addr + i / es * es;
				return 1;
			}
		}
	}
	return 1;
}

/*
 * Whether the function fn (code n bytes at addr) calls the hook: a direct
 * call of it (or of its --wrap name) where it is defined here; where it is
 * not, a call of its PLT entry, or through its GOT slot (-fno-plt).
 */
static int calls_hook(const unsigned char *p, GElf_Addr n, GElf_Addr addr,
		      const struct elf_facts *f, GElf_Addr got, GElf_Addr plt)
{
	GElf_Addr i, to;
	int32_t rel;

	for (i = 0; i + 5 <= n; i++) {
		if (p[i] == 0xff && i + 6 <= n && p[i + 1] == 0x15 && got) {
			memcpy(&rel, p + i + 2, 4);
			if (addr + i + 6 + (GElf_Addr)(int64_t)rel == got)
				return 1;
			continue;
		}
		if (p[i] != 0xe8)
			continue;
		memcpy(&rel, p + i + 1, 4);
		to = addr + i + 5 + (GElf_Addr)(int64_t)rel;
		if (f->hook_defined ? to == f->hook_addr ||
				      (f->wrap_addr && to == f->wrap_addr) :
				      plt && to == plt)
			return 1;
	}
	return 0;
}

/* Whether s, in a file where __fentry__ is not defined (its first call
 * is taken for __fentry__'s PLT slot), calls one of the file's own
 * functions (starts, n, sorted) first instead: then it is not
 * instrumented, just a function that begins with a call. */
static int calls_own_first(const struct fn_sym *s, const GElf_Addr *starts,
			   size_t n, const struct elf_facts *f)
{
	GElf_Addr at = 0, to;
	int32_t rel;

	if (f->fentry_defined)
		return 0;
	if (s->size >= 4 && !memcmp(s->code, "\xf3\x0f\x1e\xfa", 4))
		at = 4;
	if (at + 1 <= s->size && s->code[at] == 0x67)
		at++;
	if (at + 5 > s->size || s->code[at] != 0xe8)
		return 0;
	memcpy(&rel, s->code + at + 1, 4);
	to = s->start + at + 5 + (GElf_Addr)(int64_t)rel;
	return bsearch(&to, starts, n, sizeof(*starts), addr_cmp) != NULL;
}

struct bare_fn {
	GElf_Addr start;
	const char *name, *object;
	int site;                   /* it carries a counting site */
	GElf_Addr first;            /* the lowest start of its object's */
};

static int same_object(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* By object (those without one last), then by address. */
static int object_cmp(const void *a, const void *b)
{
	const struct bare_fn *x = a, *y = b;
	int c;

	if (!same_object(x->object, y->object)) {
		if (!x->object || !y->object)
			return x->object ? -1 : 1;
		if ((c = strcmp(x->object, y->object)))
			return c;
	}
	return x->start < y->start ? -1 : x->start > y->start;
}

/* By the first function of their object, then by address. */
static int bare_cmp(const void *a, const void *b)
{
	const struct bare_fn *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Keeps of v (n functions) those that count: every one of an object
 * with no counting site at all (built without the flags), and a bare one
 * whose object is unknown; a bare function of an object that has sites
 * was left out on purpose (no_instrument_function,
 * -finstrument-functions-exclude-*), and is dropped.  Returns how many
 * are kept, their bare ones first, in the order to name them; *nbare
 * says how many are bare.
 */
static size_t keep_partial(struct bare_fn *v, size_t n, size_t *nbare)
{
	size_t i, j, k, kept = 0, bare = 0;

	qsort(v, n, sizeof(*v), object_cmp);
	for (i = 0; i < n; i = j) {
		int sites = 0;

		for (j = i; j < n && same_object(v[j].object, v[i].object); j++)
			sites |= v[j].site;
		for (k = i; k < j; k++) {
			if (sites && !v[k].site && v[i].object)
				continue;
			v[k].first = v[i].start;
			v[kept++] = v[k];
		}
	}
	/* The bare ones first, by object in address order. */
	for (i = 0; i < kept; i++)
		if (!v[i].site) {
			struct bare_fn t = v[bare];

			v[bare++] = v[i];
			v[i] = t;
		}
	qsort(v, bare, sizeof(*v), bare_cmp);
	*nbare = bare;
	return kept;
}

/* Names up to ten functions of bare (n, sorted) into buf, by object. */
static void name_bare(const struct bare_fn *v, size_t n, char *buf,
		      size_t len)
{
	size_t i, used = 0, shown = n < 10 ? n : 10;

#define PUT(...) do { \
	int w_ = snprintf(buf + used, len - used, __VA_ARGS__); \
	if (w_ > 0) \
		used += (size_t)w_ < len - used ? (size_t)w_ : len - used - 1; \
} while (0)
	buf[0] = '\0';
	for (i = 0; i < shown; i++) {
		char name[256], object[256];
		int start = !i || !same_object(v[i].object, v[i - 1].object);

		vgl_text_line_buf(name, sizeof(name), v[i].name);
		if (start && v[i].object) {
			vgl_text_line_buf(object, sizeof(object), v[i].object);
			PUT("%sfrom %s: %s", i ? "; " : "", object, name);
		} else if (start) {
			PUT("%swithout debug information: %s",
			    i ? "; " : "", name);
		} else {
			PUT(", %s", name);
		}
	}
	if (n > shown)
		PUT("; and %zu more", n - shown);
#undef PUT
}

static void scan_partial(Elf *elf, struct elf_facts *f)
{
	int entry = f->fentry_calls || f->fentry_undef;
	int inline_mode = f->hook_defined && f->calls;
	int is_static = f->program && !f->interp;
	GElf_Addr got = 0, plt = 0;
	struct fn_list l = { 0 };
	struct cu_list c = { 0 };
	struct bare_fn *bare = NULL;
	GElf_Addr *starts = NULL;
	char *rt = NULL;
	size_t i, n = 0, nbare = 0;
	Dwarf *dw = NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	/* Left to another object: the hook is called through the PLT. */
	if (!f->hook_defined && f->hook_undef && find_hook_plt(elf, &got, &plt))
		inline_mode = 1;
	if (!entry && !inline_mode)
		return;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB &&
		    collect_functions(elf, scn, &sh, &l) < 0)
			goto out;
	if (!l.n)
		goto out;
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (dw && collect_cus(dw, &c) < 0)
		goto out;
	if (is_static && !c.n)
		goto out;       /* the C library's cannot be told apart */
	if (!(bare = malloc(l.n * sizeof(*bare))) ||
	    !(starts = malloc(l.n * sizeof(*starts))) ||
	    !(rt = malloc(l.n)))
		goto out;
	mark_runtime(&l, rt);
	for (i = 0; i < l.n; i++)
		starts[i] = l.v[i].start;
	qsort(starts, l.n, sizeof(*starts), addr_cmp);
	for (i = 0; i < l.n; i++) {
		const struct fn_sym *s = &l.v[i];
		const char *object = cu_of(&c, s->start);

		if (startup_name(s->name) || strstr(s->name, ".cold"))
			continue;
		if (rt[i])
			continue;
		if (is_static && !object)
			continue;
		if (!object)
			object = s->file;
		bare[n].start = s->start;
		bare[n].name = s->name;
		bare[n].object = object;
		bare[n].site = (entry && calls_fentry_first(s->code, s->size,
							     s->start, f) &&
				!calls_own_first(s, starts, l.n, f)) ||
			       (inline_mode && calls_hook(s->code, s->size,
							  s->start, f, got,
							  plt));
		n++;
	}
	if (!n)
		goto out;
	f->own_fns = keep_partial(bare, n, &nbare);
	f->bare_fns = nbare;
	if (nbare)
		name_bare(bare, nbare, f->bare, sizeof(f->bare));
out:
	free(rt);
	free(starts);
	free(bare);
	free(c.v);
	if (dw)
		dwarf_end(dw);
	free(l.v);
}

/* Records whether the .vgl magic, which only vigil's runtime (and the vigil
 * tool, which defines no hook) carries, is in an allocated section. */
static void scan_magic(Elf_Scn *scn, struct elf_facts *f)
{
	Elf_Data *d = elf_getdata(scn, NULL);

	if (d && d->d_buf &&
	    memmem(d->d_buf, d->d_size, VGL_MAGIC, VGL_MAGIC_LEN))
		f->vigil_magic = 1;
}

/* Records whether a relocation in scn fills a PLT slot with the hook's
 * resolver: the program calls the hook, through that slot. */
static void scan_irelative(Elf_Scn *scn, const GElf_Shdr *sh,
			   struct elf_facts *f)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	GElf_Rela r;
	size_t i, n;

	if (!d || !sh->sh_entsize || !f->hook_ifunc)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++)
		if (gelf_getrela(d, (int)i, &r) &&
		    GELF_R_TYPE(r.r_info) == R_X86_64_IRELATIVE &&
		    (GElf_Addr)r.r_addend == f->hook_addr)
			f->hook_plt = 1;
}


/* Reads one of the runtime's distances (.vigil.hook: from the hook's
 * resolver to WRAP, runtime/hooks.c; .vigil.fentry: from FENTRY to
 * FENTRY_WRAP, runtime/fentry.S) into *delta; sets *has. */
static void read_delta(Elf_Scn *scn, int64_t *delta, int *has)
{
	Elf_Data *d = elf_getdata(scn, NULL);

	if (!d || !d->d_buf || d->d_size < sizeof(*delta))
		return;
	memcpy(delta, d->d_buf, sizeof(*delta));
	*has = 1;
}

/* Whether [off, off + size) lies within a file of fsize bytes. */
static int within(uint64_t off, uint64_t size, uint64_t fsize)
{
	return off <= fsize && size <= fsize - off;
}

/*
 * Reads the facts from an open ELF file of fsize bytes.  Returns 0, or -1
 * after writing the reason into why (not an ELF file, cut short, not a
 * program or library, another machine).  A file cut short must not pass
 * for a stripped one, so the section table and every section with
 * contents must lie within the file.
 */
static int read_facts(Elf *elf, uint64_t fsize, struct elf_facts *f,
		      char *why, size_t len)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	size_t i, nph;

	memset(f, 0, sizeof(*f));
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		snprintf(why, len, "not an ELF file");
		return -1;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		snprintf(why, len, "not a program or shared library (ELF type %u)",
			 (unsigned)eh.e_type);
		return -1;
	}
	if (eh.e_machine != EM_X86_64) {
		snprintf(why, len, "not an x86-64 program (ELF machine %u)",
			 (unsigned)eh.e_machine);
		return -1;
	}
	if (eh.e_shnum && !within(eh.e_shoff, (uint64_t)eh.e_shnum *
				  eh.e_shentsize, fsize)) {
		snprintf(why, len, "cut short or corrupt: its section table "
			 "ends past the end of the file");
		return -1;
	}
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    !within(sh.sh_offset, sh.sh_size, fsize)) {
			snprintf(why, len, "cut short or corrupt: section %zu "
				 "ends past the end of the file",
				 elf_ndxscn(scn));
			return -1;
		}
	f->program = eh.e_type == ET_EXEC;
	if (elf_getphdrnum(elf, &nph) == 0)
		for (i = 0; i < nph; i++)
			if (gelf_getphdr(elf, (int)i, &ph) &&
			    ph.p_type == PT_INTERP)
				f->program = f->interp = 1;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			scan_symbols(elf, scn, &sh, f);
		else if (sh.sh_type == SHT_PROGBITS &&
			 section_is(elf, &sh, ".vigil.hook"))
			read_delta(scn, &f->wrap_delta, &f->has_delta);
		else if (sh.sh_type == SHT_PROGBITS &&
			 section_is(elf, &sh, ".vigil.fentry"))
			read_delta(scn, &f->fentry_delta,
				   &f->has_fentry_delta);
		else if (sh.sh_type == SHT_DYNAMIC)
			scan_dynamic(elf, scn, &sh, f);
		else if (sh.sh_type == SHT_PROGBITS && sh.sh_size &&
			 section_is(elf, &sh, "__mcount_loc"))
			f->mcount_loc = 1;
		else if (sh.sh_type == SHT_PROGBITS && sh.sh_size &&
			 section_is(elf, &sh, "__patchable_function_entries"))
			f->patchable = 1;
	}
	/* A hook defined in one table and undefined in none is defined. */
	if (f->hook_defined)
		f->hook_undef = 0;
	if (f->fentry_defined)
		f->fentry_undef = 0;
	/* Stripped: the IFUNC's value is its resolver's address. */
	if (f->hook_defined && f->hook_ifunc && !f->wrap_addr && f->has_delta)
		f->wrap_addr = f->hook_addr + (GElf_Addr)f->wrap_delta;
	/* Stripped: FENTRY is exported, FENTRY_WRAP was in .symtab only. */
	if (f->fentry_defined && !f->fentry_wrap && f->has_fentry_delta)
		f->fentry_wrap = f->fentry_addr + (GElf_Addr)f->fentry_delta;
	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA)
			scan_irelative(scn, &sh, f);
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC))
			continue;
		if ((f->hook_defined || f->fentry_defined) &&
		    (sh.sh_flags & SHF_EXECINSTR))
			scan_calls(scn, &sh, f);
		if (!f->vigil_api && !f->vigil_magic)
			scan_magic(scn, f);
	}
	if (f->fentry_calls || f->fentry_undef)
		scan_scratch(elf, f);
	scan_partial(elf, f);
	return 0;
}

/*
 * The verdict on f, all its functions aside: returns 0 with the good news
 * in msg, or 1 with the reason in msg.
 */
static int verdict_whole(const struct elf_facts *f, char *msg, size_t len)
{
	const char *what = f->program ? "" : "shared library, ";
	/* The magic alone is no proof: the vigil tool carries it too. */
	int vigil = f->vigil_api || (f->hook_defined && f->vigil_magic);
	/* Built as vigil-ondemand.pc builds (docs/ondemand.md). */
	const char *counting = f->mcount_loc ? "ondemand counting (sites idle "
				"unless VIGIL_FILE is set or `vigil attach "
				"--scan counts` switches them on)" :
				"entry counting";

	if (f->gmon_start) {
		snprintf(msg, len, "linked with gprof's gcrt1.o (-pg reached the "
			 "link): it writes gmon.out at exit (give -pg to the "
			 "compiler only: `pkg-config --cflags vigil-entry`)");
		return 1;
	}
	/* The wrapped name is the fast path, which reads TLS at once: a
	 * static program's IFUNC resolvers run before TLS exists
	 * (runtime/fentry.S). */
	if (f->fentry_defined && f->fentry_wrap_calls && vigil &&
	    f->program && !f->interp) {
		snprintf(msg, len, "instrumented for entry counting, with "
			 "vigil's runtime linked in, but static with "
			 "--wrap=" FENTRY ": an instrumented IFUNC resolver "
			 "would crash before main (link -static programs with "
			 "`pkg-config --libs vigil-entry` or --variable=exe_libs, "
			 "which leave it out)");
		return 1;
	}
	if (f->keeps) {
		snprintf(msg, len, "instrumented for entry counting, but %s "
			 "keeps a value in r%d across its call of %s (at "
			 "0x%llx)%s: %s keeps every register for its callers "
			 "(no_caller_saved_registers), and __fentry__ changes "
			 "r10 and r11 before its first instruction, so the "
			 "program would compute something else (build %s with "
			 "__attribute__((no_instrument_function)))",
			 f->keep_caller, f->keep.reg, f->keep_callee,
			 (unsigned long long)f->keep.call,
			 f->keeps > 1 ? ", and other calls so" : "",
			 f->keep_callee, f->keep_callee);
		return 1;
	}
	/* Clang's ondemand build (vigil-ondemand.pc's clang_cflags): nops,
	 * no call of the hook in the file, until the runtime writes them. */
	if (f->patchable && f->clang_od && !f->fentry_calls) {
		const char *od = "ondemand counting (Clang's "
				 "-fpatchable-function-entry: sites idle unless "
				 "VIGIL_FILE is set or `vigil attach --scan "
				 "counts` switches them on)";

		if (f->program && vigil && f->ondemand_rt) {
			snprintf(msg, len, "instrumented for %s, with vigil's "
				 "runtime linked in", od);
			return 0;
		}
		if (!f->program) {
			snprintf(msg, len, "instrumented shared library, for "
				 "%s: its hook is that of the program that "
				 "loads it", od);
			return 0;
		}
	}
	if (f->fentry_defined && f->fentry_calls && vigil && f->mcount_loc &&
	    f->program && !f->ondemand_rt) {
		snprintf(msg, len, "instrumented for ondemand counting "
			 "(-mrecord-mcount), but linked without vigil's "
			 "ondemand runtime: its sites always count (link with "
			 "`pkg-config --libs vigil-ondemand`)");
		return 1;
	}
	if (f->fentry_defined && f->fentry_calls && vigil) {
		snprintf(msg, len, "instrumented for %s, %swith vigil's "
			 "runtime linked in", counting, what);
		return 0;
	}
	if (f->fentry_undef && f->needs_libvigil) {
		snprintf(msg, len, "instrumented for entry counting, %swith "
			 "vigil's runtime from libvigil.so", what);
		return 0;
	}
	if (f->fentry_undef && !f->program) {
		snprintf(msg, len, "instrumented shared library, for %s: its "
			 "hook is that of the program that loads it", counting);
		return 0;
	}
	if (f->fentry_undef) {
		snprintf(msg, len, "instrumented for entry counting, but its "
			 "hook is not vigil's: it binds at run time to the C "
			 "library's __fentry__ (gprof's, idle) (link with "
			 "`pkg-config --libs vigil-entry`)");
		return 1;
	}
	/* Stripped: __wrap___fentry__, where the program's own calls go, is
	 * in no symbol table left (the dynamic one has the IFUNC only). */
	if (f->fentry_defined && !f->fentry_wrap && vigil && !f->calls &&
	    !f->fentry_calls) {
		snprintf(msg, len, "stripped of " FENTRY_WRAP ": cannot tell "
			 "whether it is instrumented for entry counting "
			 "(vigil's runtime is linked in)");
		return 1;
	}
	if (f->fentry_defined && f->fentry_calls) {
		snprintf(msg, len, "instrumented for entry counting, but its "
			 "hook is not vigil's: it has its own __fentry__ (link "
			 "with `pkg-config --libs vigil-entry`)");
		return 1;
	}
	if (f->hook_defined && f->calls && vigil) {
		snprintf(msg, len, "instrumented, %swith vigil's runtime linked in",
			 what);
		return 0;
	}
	if (f->hook_undef && f->needs_libvigil) {
		snprintf(msg, len, "instrumented, %swith vigil's runtime from libvigil.so",
			 what);
		return 0;
	}
	if (f->hook_undef && !f->program) {
		snprintf(msg, len, "instrumented shared library: its hooks are "
			 "those of the program that loads it");
		return 0;
	}
	if (f->hook_undef) {
		snprintf(msg, len, "instrumented, but its hooks are not vigil's: "
			 "they bind at run time to the C library's no-ops "
			 "(link with `pkg-config --libs vigil`)");
		return 1;
	}
	if (f->hook_defined && f->calls) {
		snprintf(msg, len, "instrumented, but its hooks are not vigil's: "
			 "it has its own (the C library's no-ops or another "
			 "tool's; link with `pkg-config --libs vigil`)");
		return 1;
	}
	if (f->hook_defined && f->hook_plt && vigil) {
		snprintf(msg, len, "instrumented, with vigil's runtime linked in, "
			 "but without -Xlinker --wrap=" HOOK ": every call "
			 "takes a PLT slot, and an instrumented IFUNC resolver "
			 "would crash (link with `pkg-config --libs vigil`)");
		return 1;
	}
	if (!f->has_syms) {
		snprintf(msg, len, "no symbols (stripped): cannot tell whether "
			 "it is instrumented or whose hooks it has");
		return 1;
	}
	snprintf(msg, len, "not instrumented: nothing calls " HOOK
		 " (compile with -finstrument-functions)%s",
		 vigil ? "; vigil's runtime is linked in" : "");
	return 1;
}

/*
 * The verdict on f: a good one (verdict_whole) is bad after all when some
 * of the program's own functions carry no counting site (scan_partial),
 * since their calls are in no profile.
 */
static int verdict(const struct elf_facts *f, char *msg, size_t len)
{
	int entry = f->fentry_calls || f->fentry_undef;

	if (verdict_whole(f, msg, len) || !f->bare_fns)
		return verdict_whole(f, msg, len);
	snprintf(msg, len, "partly instrumented%s%s: %lu of %lu functions "
		 "carr%s no counting site (%s)",
		 f->program ? "" : " shared library",
		 !entry ? "" : f->program ? " for entry counting" :
		 ", for entry counting",
		 f->bare_fns, f->own_fns, f->bare_fns == 1 ? "ies" : "y",
		 f->bare);
	return 1;
}

/* Checks one file; prints its line and returns 0 (good) or 1. */
static int check_one(const char *path)
{
	struct elf_facts f;
	struct stat st;
	char msg[4096];
	Elf *elf = NULL;
	int fd, ret;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		vgl_error("%s: %s", path, strerror(errno));
		return 1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		ret = 1;
		snprintf(msg, sizeof(msg), "not a regular file");
		goto out;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		ret = 1;
		snprintf(msg, sizeof(msg), "not an ELF file");
		goto out;
	}
	ret = read_facts(elf, (uint64_t)st.st_size, &f, msg, sizeof(msg)) < 0 ? 1
		: verdict(&f, msg, sizeof(msg));
out:
	if (ret) {
		vgl_error("%s: %s", path, msg);
	} else {
		/* The path as every line gives a name (text.h). */
		vgl_text_line(stdout, path);
		printf(": %s\n", msg);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* vigil check -p PID: the state of a running ondemand program's sites. */
static int check_pid(const char *arg)
{
	struct sampler_live_info li;
	char err[256];
	pid_t p;
	long pid;
	int ret;

	if ((ret = parse_pid("check", arg, &p)))
		return ret;
	pid = p;
	if (sampler_live_inspect(p, &li, err, sizeof(err))) {
		vgl_error("pid %ld: %s", pid, err);
		return EXIT_BAD_FILE;
	}
	if (!li.ondemand) {
		vgl_error("pid %ld: no ondemand counting (not built with "
			  "vigil-ondemand, or not yet started)", pid);
		return EXIT_BAD_FILE;
	}
	printf("pid %ld: ondemand counting, %s: %" PRIu64 " sites idle, %"
	       PRIu64 " on%s\n", pid,
	       !li.idle_start ? "counting from its start (VIGIL_FILE)" :
	       li.want ? "started idle, switched on live" :
	       li.memfd ? "started idle, switched off again" :
			  "started idle",
	       li.sites[0], li.sites[1],
	       li.memfd ? "; its counts in a memfd" : "");
	return 0;
}

int cmd_check(int argc, char **argv)
{
	const char *pid = NULL, *pid2 = NULL;
	const struct option_spec specs[] = {
		{ "-p", &pid, NULL }, { "--pid", &pid2, NULL },
		{ NULL, NULL, NULL },
	};
	char *files[argc];
	int i, nfiles, status = 0;

	if (parse_options("check", argc, argv, specs, files, &nfiles))
		return EXIT_USAGE;
	if (pid2)
		pid = pid2;
	if (pid && nfiles)
		return usage_error("check", "-p PID takes no program");
	if (pid)
		return check_pid(pid);
	if (!nfiles)
		return usage_error("check", "no program given");
	elf_version(EV_CURRENT);
	for (i = 0; i < nfiles; i++)
		if (check_one(files[i]))
			status = EXIT_BAD_FILE;
	return status;
}
