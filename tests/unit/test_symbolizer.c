/*
 * test_symbolizer.c - lib/symbolizer.c against small shared objects built
 * here with gcc: an address at a function's first byte, at its last byte,
 * between two functions, in a stripped module (only .dynsym left), in a
 * module whose symbols and lines are in a separate debug file found by
 * .gnu_debuglink, with a mismatched build-id, and a module path naming a
 * FIFO.  The expected addresses and sizes come from binutils' nm, not from
 * the code under test.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "symbolizer.h"

static char dir[] = "/tmp/vigil-symtest.XXXXXX";

/* Line numbers below are those of this text. */
static const char fixture[] =
	"/* fixture */\n"                                            /* 1 */
	"volatile int sink;\n"                                       /* 2 */
	"__attribute__((noinline, aligned(64))) int alpha(int x)\n"  /* 3 */
	"{\n"                                                        /* 4 */
	"\treturn x + sink;\n"                                       /* 5 */
	"}\n"                                                        /* 6 */
	"__attribute__((noinline, aligned(64))) static int hidden(int x)\n"
	"{\n"                                                        /* 8 */
	"\treturn x * sink;\n"                                       /* 9 */
	"}\n"                                                        /* 10 */
	"__attribute__((aligned(64))) int beta(int x)\n"             /* 11 */
	"{\n"                                                        /* 12 */
	"\treturn hidden(x) + 1;\n"                                  /* 13 */
	"}\n";

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Address and size of sym in path, from nm. */
static int nm_sym(const char *path, const char *sym, uint64_t *addr,
		  uint64_t *size)
{
	char cmd[1024], line[512], name[256], type;
	unsigned long long a, s;
	FILE *p;
	int found = 0;

	snprintf(cmd, sizeof(cmd), "nm -S %s", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %llx %c %255s", &a, &s, &type, name) == 4 &&
		    !strcmp(name, sym)) {
			*addr = a;
			*size = s;
			found = 1;
		}
	pclose(p);
	return found ? 0 : -1;
}

/* The line addr2line (binutils) gives for addr in path, or -1. */
static int addr2line(const char *path, uint64_t addr)
{
	char cmd[1024], line[512], *colon;
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "addr2line -e %s 0x%llx", path,
		 (unsigned long long)addr);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (fgets(line, sizeof(line), p) && (colon = strrchr(line, ':')))
		n = atoi(colon + 1);
	pclose(p);
	return n;
}

/* Runs f with stderr going to a file; returns what was written there. */
static char *capture_stderr(void (*f)(void *), void *arg)
{
	char path[256], *buf = calloc(1, 4096);
	int saved = dup(2), fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/stderr", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	fflush(stderr);
	dup2(fd, 2);
	f(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, 4095);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	close(fd);
	return buf;
}

static struct vgl_symbolizer *open1(const char *path, const uint8_t *bid,
				    size_t bid_len, uint64_t bias)
{
	struct vgl_symbolizer_module m = { path, bid, bid_len, bias, NULL };
	struct vgl_symbolizer *s = NULL;

	if (vgl_symbolizer_new(&s, &m, 1))
		return NULL;
	return s;
}

struct lookup {
	struct vgl_symbolizer *s;
	uint64_t addr;
	struct vgl_func_sym *f;
};

static void do_lookup(void *arg)
{
	struct lookup *l = arg;

	l->f = vgl_symbolizer_func(l->s, 0, l->addr);
	/* A second lookup must not warn again. */
	vgl_symbolizer_func(l->s, 0, l->addr);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}


/*
 * Lines of a module of three CUs, with .debug_aranges (read one CU at a
 * time, as asked) and without (Clang writes none: every CU read at once):
 * the same file and line, or none in both, at every byte of every
 * function; at each function's first byte what binutils' addr2line says.
 */
static const char *multi_src[] = {
	"volatile int v;\n"
	"int a1(int x)\n{\n\tint i, s = 0;\n"
	"\tfor (i = 0; i < x; i++)\n\t\ts += i * v;\n\treturn s;\n}\n"
	"__attribute__((noinline)) static int a2(int x)\n{\n\treturn x * v + 3;\n}\n"
	"int a3(int x)\n{\n\treturn a2(x) + a1(x);\n}\n",
	"extern volatile int v;\n"
	"int b1(int x)\n{\n\tif (x > 3)\n\t\treturn x - v;\n"
	"\treturn x + v;\n}\n"
	"int b2(int x)\n{\n\twhile (x > v)\n\t\tx /= 2;\n\treturn x;\n}\n",
	"extern volatile int v;\n"
	"__attribute__((noinline)) static int c1(int x)\n{\n\treturn x ^ v;\n}\n"
	"int c2(int x)\n{\n\tint i;\n\tfor (i = 0; i < 4; i++)\n"
	"\t\tx = c1(x) + i;\n\treturn x;\n}\n",
};

/* Compares lines of so and noar (the same module read another way:
 * without .debug_aranges, or from compressed sections, as the label
 * says) at every step-th byte of so's functions (more than min of them),
 * and, when step is 1, at each function's start with addr2line. */
static void compare_lines_every(const char *how, const char *what,
				const char *so, const char *noar,
				size_t want_starts, uint64_t step, size_t min)
{
	char cmd[2048], row[512], name[256], label[256], type;
	unsigned long long a, size;
	struct vgl_symbolizer *s1 = open1(so, NULL, 0, 0);
	struct vgl_symbolizer *s2 = open1(noar, NULL, 0, 0);
	size_t compared = 0, with_line = 0, starts = 0, differ = 0;
	size_t bad_starts = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S %s", so);
	p = popen(cmd, "r");
	while (p && fgets(row, sizeof(row), p)) {
		uint64_t x;

		if (sscanf(row, "%llx %llx %c %255s", &a, &size, &type, name) != 4 ||
		    (type != 'T' && type != 't'))
			continue;
		for (x = a; x < a + size; x += step) {
			const char *f1, *f2;
			int l1, l2, r1, r2;

			r1 = vgl_symbolizer_line(s1, 0, x, &f1, &l1);
			r2 = vgl_symbolizer_line(s2, 0, x, &f2, &l2);
			compared++;
			with_line += r1 == 0;
			if ((r1 != r2 || (r1 == 0 && (strcmp(f1, f2) || l1 != l2))) &&
			    !differ++)
				printf("# %s %llx: %s:%d (%d) against %s:%d (%d)\n",
				       what, (unsigned long long)x, r1 ? "?" : f1, l1,
				       r1, r2 ? "?" : f2, l2, r2);
			if (step == 1 && x == a && strlen(name) == 2) {
				/* addr2line's "?" (0): Clang's line 0, none. */
				int want = addr2line(so, x);

				starts++;
				if (want ? r1 || l1 != want : r1 != -ENOENT)
					bad_starts++;
			}
		}
	}
	if (p)
		pclose(p);
	if (step == 1)
		snprintf(label, sizeof(label), "symbolizer lines %s, %s: every byte",
			 how, what);
	else
		snprintf(label, sizeof(label),
			 "symbolizer lines %s, %s: one byte in %llu", how, what,
			 (unsigned long long)step);
	CHECK(label, compared > min && with_line > min * 2 / 3 && differ == 0,
	      "%zu addresses, %zu with a line, %zu differ", compared, with_line,
	      differ);
	snprintf(label, sizeof(label),
		 "symbolizer lines %s, %s: each function's start as addr2line",
		 how, what);
	if (step == 1)
		CHECK(label, starts == want_starts && bad_starts == 0,
		      "%zu of %zu differ", bad_starts, starts);
	vgl_symbolizer_free(s1);
	vgl_symbolizer_free(s2);
}

static void compare_lines(const char *how, const char *what, const char *so,
			  const char *noar, size_t want_starts)
{
	compare_lines_every(how, what, so, noar, want_starts, 1, 150);
}

/* Writes text to dir/name. */
static int write_file(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "w")))
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Checks that module path gives early() (at addr) early.c:want. */
static void check_early(const char *label, const char *path, uint64_t addr,
			int want)
{
	struct vgl_symbolizer *s = open1(path, NULL, 0, 0);
	const char *file = NULL;
	int line = 0;

	CHECK(label, vgl_symbolizer_line(s, 0, addr, &file, &line) == 0 &&
	      !strcmp(file, "early.c") && line == want && want > 0,
	      "got %s:%d, addr2line says %d", file ? file : "?", line, want);
	vgl_symbolizer_free(s);
}

/*
 * A function that starts where another CU's line sequence ends: late()
 * (cold, in .text.unlikely, which the linker puts first) ends at early()'s
 * first byte, and late.c's CU comes second.  With every CU's rows in one
 * table, late.c's end-of-sequence row, later at the same address, hid
 * early()'s line: GCC puts main in .text.startup, and `vigil report` gave
 * main no file and line in xz's test programs.
 */
static void test_sequence_end(void)
{
	char so[512];
	uint64_t e_addr, e_size, l_addr, l_size;
	int want;

	snprintf(so, sizeof(so), "%s/seq.so", dir);
	if (write_file("early.c",
		       "volatile int v;\n"
		       "__attribute__((noinline, section(\".text.startup\")))\n"
		       "int early(int x)\n{\n\treturn x * v + 1;\n}\n") ||
	    write_file("late.c",
		       "extern volatile int v;\n"
		       "__attribute__((noinline, cold)) int late(int x)\n"
		       "{\n\treturn x - v;\n}\n") ||
	    sh("cd %s && gcc -g -O2 -falign-functions=1 -fPIC -shared early.c"
	       " late.c -o seq.so && objcopy --remove-section=.debug_aranges"
	       " seq.so seq-noar.so", dir) ||
	    nm_sym(so, "early", &e_addr, &e_size) ||
	    nm_sym(so, "late", &l_addr, &l_size) ||
	    l_addr + l_size != e_addr) {
		CHECK("symbolizer line at another CU's sequence end: setup", 0,
		      "late() does not end where early() starts in %s", so);
		return;
	}
	want = addr2line(so, e_addr);
	check_early("symbolizer line at another CU's sequence end", so, e_addr,
		    want);
	/* The same read whole, in one table (no .debug_aranges). */
	snprintf(so, sizeof(so), "%s/seq-noar.so", dir);
	check_early("symbolizer line at another CU's sequence end, one table",
		    so, e_addr, want);
}

/*
 * Compressed debug sections (libc6-dbg's, --compress-debug-sections):
 * lines read from .debug_line by lib/dwline.c, not libdw, which inflates
 * every section when it opens the file.  The same lines at every byte as
 * libdw reads from the uncompressed module, for GCC's DWARF 5 and 4,
 * Clang's 5 and 4 and a mix; the same with .debug_info removed (so they
 * come from .debug_line alone); from a separate debug file found by
 * build-id; and early() after another CU's sequence end.
 */
static void test_compressed(void)
{
	static const struct {
		const char *what, *build;
	} mods[] = {
		{ "GCC, DWARF 5", "gcc -g -O2" },
		{ "GCC, DWARF 4", "gcc -gdwarf-4 -O2" },
		{ "Clang, DWARF 5", "clang -g -O2" },
		{ "Clang, DWARF 4", "clang -gdwarf-4 -O2" },
	};
	char so[512], z[512], label[256], dbgdir[512];
	const char *old = getenv("VIGIL_DEBUG_DIR");
	uint64_t e_addr, e_size;
	size_t i;

	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		snprintf(so, sizeof(so), "%s/z%zu.so", dir, i);
		snprintf(z, sizeof(z), "%s/z%zu-z.so", dir, i);
		snprintf(label, sizeof(label), "symbolizer lines compressed, %s: setup",
			 mods[i].what);
		if (sh("cd %s && %s -fPIC -shared cu0.c cu1.c cu2.c -o z%zu.so &&"
		       " objcopy --compress-debug-sections=zlib z%zu.so z%zu-z.so &&"
		       " readelf -SW z%zu-z.so | grep -q 'debug_line .* C '",
		       dir, mods[i].build, i, i, i, i)) {
			CHECK(label, 0, "could not build %s", z);
			continue;
		}
		compare_lines("compressed", mods[i].what, so, z, 7);
	}
	/* Without .debug_info, libdw has no DWARF at all. */
	if (sh("cd %s && objcopy --remove-section=.debug_info z0-z.so z0-noinfo.so",
	       dir)) {
		CHECK("symbolizer lines compressed, no .debug_info: setup", 0,
		      "objcopy failed in %s", dir);
	} else {
		snprintf(so, sizeof(so), "%s/z0.so", dir);
		snprintf(z, sizeof(z), "%s/z0-noinfo.so", dir);
		compare_lines("compressed", "no .debug_info", so, z, 7);
	}
	snprintf(so, sizeof(so), "%s/mixed.so", dir);
	snprintf(z, sizeof(z), "%s/mixed-z.so", dir);
	if (!sh("objcopy --compress-debug-sections=zlib %s %s", so, z))
		compare_lines("compressed", "GCC and a Clang CU", so, z, 7);
	else
		CHECK("symbolizer lines compressed, GCC and a Clang CU: setup", 0,
		      "objcopy failed on %s", so);
	/* A stripped module and its compressed debug file, as libc6-dbg. */
	snprintf(dbgdir, sizeof(dbgdir), "%s/zdebug", dir);
	if (sh("cd %s && gcc -g -O2 -fPIC -shared -Wl,--build-id cu0.c cu1.c"
	       " cu2.c -o zb.so && id=$(readelf -n zb.so | awk '/Build ID/ {print $3}')"
	       " && d=$(echo $id | cut -c1-2) && mkdir -p zdebug/.build-id/$d &&"
	       " objcopy --only-keep-debug --compress-debug-sections=zlib zb.so"
	       " zdebug/.build-id/$d/$(echo $id | cut -c3-).debug &&"
	       " strip --strip-all zb.so -o"
	       " zb-stripped.so", dir)) {
		CHECK("symbolizer lines compressed, separate debug file: setup", 0,
		      "could not build in %s", dir);
	} else {
		setenv("VIGIL_DEBUG_DIR", dbgdir, 1);
		snprintf(so, sizeof(so), "%s/zb.so", dir);
		snprintf(z, sizeof(z), "%s/zb-stripped.so", dir);
		compare_lines("compressed", "separate debug file", so, z, 7);
		if (old)
			setenv("VIGIL_DEBUG_DIR", old, 1);
		else
			unsetenv("VIGIL_DEBUG_DIR");
	}
	/* early() where late()'s sequence ends, from compressed sections. */
	snprintf(so, sizeof(so), "%s/seq.so", dir);
	snprintf(z, sizeof(z), "%s/seq-z.so", dir);
	if (nm_sym(so, "early", &e_addr, &e_size) ||
	    sh("objcopy --compress-debug-sections=zlib %s %s", so, z)) {
		CHECK("symbolizer line at another CU's sequence end, compressed: setup",
		      0, "no early() in %s", so);
		return;
	}
	check_early("symbolizer line at another CU's sequence end, compressed",
		    z, e_addr, addr2line(so, e_addr));
}

/* The first line cmd prints, without its newline ("" when none). */
static void first_line(const char *cmd, char *out, size_t cap)
{
	FILE *p = popen(cmd, "r");

	out[0] = 0;
	if (p && fgets(out, (int)cap, p))
		out[strcspn(out, "\n")] = 0;
	if (p)
		pclose(p);
}

/*
 * The C library's own debug file, as Debian ships it (libc6-dbg, which
 * valgrind brings): compressed sections, read by lib/dwline.c, against a
 * decompressed copy read by libdw, at every 61st byte of every function.
 * Real GCC output of every kind the libc build makes (assembly, IFUNC
 * variants, .text.unlikely, many CUs per sequence gap).
 */
static void test_compressed_libc(void)
{
	char libc[512], dbg[1024], plain[512], cmd[1024], row[512];
	size_t n;

	first_line("gcc -print-file-name=libc.so.6", libc, sizeof(libc));
	snprintf(cmd, sizeof(cmd),
		 "readelf -n %s 2>/dev/null | awk '/Build ID/ {print substr($3, 1, 2) \"/\" substr($3, 3)}'",
		 libc);
	first_line(cmd, row, sizeof(row));
	n = (size_t)snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%s.debug",
			     row);
	snprintf(plain, sizeof(plain), "%s/libc-plain.debug", dir);
	if (!row[0] || n >= sizeof(dbg) || access(dbg, R_OK) ||
	    sh("readelf -SW %s 2>/dev/null | grep -q 'debug_line .* C ' &&"
	       " objcopy --decompress-debug-sections %s %s", dbg, dbg, plain)) {
		CHECK("symbolizer lines compressed, libc6-dbg: setup", 0,
		      "no compressed debug file %s for %s (make check installs libc6-dbg with valgrind)",
		      dbg, libc);
		return;
	}
	compare_lines_every("compressed", "libc6-dbg's libc", dbg, plain, 0, 61,
			    10000);
}

static void test_lines_by_cu(void)
{
	char row[512];
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(row, sizeof(row), "cu%zu.c", i);
		write_file(row, multi_src[i]);
	}
	/* GCC's CUs all have entries; with cu2.c built by Clang, the module
	 * has .debug_aranges (from GCC's CUs and the start files) without an
	 * entry for that CU. */
	if (sh("cd %s && gcc -g -O2 -fPIC -shared cu0.c cu1.c cu2.c -o multi.so &&"
	       " objcopy --remove-section=.debug_aranges multi.so multi-noar.so &&"
	       " clang -g -O2 -fPIC -c cu2.c -o cu2-clang.o &&"
	       " gcc -g -O2 -fPIC -shared cu0.c cu1.c cu2-clang.o -o mixed.so &&"
	       " objcopy --remove-section=.debug_aranges mixed.so mixed-noar.so &&"
	       " readelf -S multi.so | grep -q debug_aranges &&"
	       " readelf -S mixed.so | grep -q debug_aranges &&"
	       " ! readelf -S multi-noar.so | grep -q debug_aranges &&"
	       " ! readelf -S mixed-noar.so | grep -q debug_aranges", dir)) {
		CHECK("symbolizer lines by CU: setup", 0, "could not build in %s",
		      dir);
		return;
	}
	snprintf(row, sizeof(row), "%s/multi.so", dir);
	{
		char noar[512], mixed[512], mnoar[512];

		snprintf(noar, sizeof(noar), "%s/multi-noar.so", dir);
		snprintf(mixed, sizeof(mixed), "%s/mixed.so", dir);
		snprintf(mnoar, sizeof(mnoar), "%s/mixed-noar.so", dir);
		compare_lines("by CU", "GCC", row, noar, 7);
		compare_lines("by CU", "GCC and a Clang CU", mixed, mnoar, 7);
	}
	test_sequence_end();
	test_compressed();
	test_compressed_libc();
}

int main(void)
{
	char src[512], so[512], stripped[512], dbg[512], linked[512], fifo[512];
	int a_line;
	uint64_t a_addr, a_size, b_addr, b_size, h_addr, h_size;
	const uint64_t bias = 0x7f0000000000ull;
	struct vgl_symbolizer *s;
	struct vgl_func_sym *f;
	const char *file;
	char *err;
	int line;
	FILE *out;

	if (!mkdtemp(dir)) {
		CHECK("symbolizer setup", 0, "mkdtemp: %s", strerror(errno));
		return check_status();
	}
	snprintf(src, sizeof(src), "%s/fixture.c", dir);
	snprintf(so, sizeof(so), "%s/fixture.so", dir);
	snprintf(stripped, sizeof(stripped), "%s/stripped.so", dir);
	snprintf(dbg, sizeof(dbg), "%s/fixture.debug", dir);
	snprintf(linked, sizeof(linked), "%s/linked.so", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	out = fopen(src, "w");
	fputs(fixture, out);
	fclose(out);
	if (sh("gcc -g -O1 -fPIC -shared -Wl,--build-id %s -o %s", src, so) ||
	    sh("strip --strip-all %s -o %s", so, stripped) ||
	    sh("objcopy --only-keep-debug %s %s", so, dbg) ||
	    sh("cd %s && objcopy --add-gnu-debuglink=fixture.debug stripped.so linked.so",
	       dir) ||
	    nm_sym(so, "alpha", &a_addr, &a_size) ||
	    nm_sym(so, "beta", &b_addr, &b_size) ||
	    nm_sym(so, "hidden", &h_addr, &h_size) ||
	    mkfifo(fifo, 0600)) {
		CHECK("symbolizer setup", 0, "could not build the fixtures in %s",
		      dir);
		return check_status();
	}
	{
		uint64_t end = a_addr + a_size;

		CHECK("symbolizer fixture has a gap after alpha",
		      !(end >= h_addr && end < h_addr + h_size) &&
		      !(end >= b_addr && end < b_addr + b_size),
		      "alpha ends at %llx", (unsigned long long)end);
	}
	a_line = addr2line(so, a_addr);

	/* The full module, loaded at a bias. */
	s = open1(so, NULL, 0, bias);
	f = vgl_symbolizer_func(s, 0, bias + a_addr);
	CHECK("symbolizer first byte", f && !strcmp(f->name, "alpha") &&
	      f->start == a_addr && f->size == a_size,
	      "got %s", f ? f->name : "nothing");
	f = vgl_symbolizer_func(s, 0, bias + a_addr + a_size - 1);
	CHECK("symbolizer last byte", f && !strcmp(f->name, "alpha"),
	      "got %s", f ? f->name : "nothing");
	f = vgl_symbolizer_func(s, 0, bias + a_addr + a_size);
	CHECK("symbolizer between functions", f == NULL, "got %s",
	      f ? f->name : "");
	f = vgl_symbolizer_func(s, 0, bias + h_addr + 1);
	CHECK("symbolizer static function", f && !strcmp(f->name, "hidden") &&
	      f->start == h_addr, "got %s", f ? f->name : "nothing");
	f = vgl_symbolizer_func(s, 0, bias + b_addr + b_size - 1);
	CHECK("symbolizer last function", f && !strcmp(f->name, "beta"),
	      "got %s", f ? f->name : "nothing");
	CHECK("symbolizer line of first byte",
	      vgl_symbolizer_line(s, 0, bias + a_addr, &file, &line) == 0 &&
	      !strcmp(file, "fixture.c") && line == a_line,
	      "got %s:%d, addr2line says %d", file ? file : "?", line, a_line);
	CHECK("symbolizer line inside", vgl_symbolizer_line(s, 0,
	      bias + h_addr + h_size - 2, &file, &line) == 0 &&
	      !strcmp(file, "fixture.c") && line >= 9 && line <= 10,
	      "got %s:%d", file ? file : "?", line);
	{
		const char *f2;
		int l2;

		vgl_symbolizer_line(s, 0, bias + b_addr, &f2, &l2);
		CHECK("symbolizer file names interned", f2 == file,
		      "%p != %p", (void *)f2, (void *)file);
	}
	CHECK("symbolizer module name",
	      !strcmp(vgl_symbolizer_module_name(s, 0), "fixture.so"),
	      "got %s", vgl_symbolizer_module_name(s, 0));
	vgl_symbolizer_free(s);

	/* Stripped: .dynsym still names the exported functions. */
	s = open1(stripped, NULL, 0, 0);
	f = vgl_symbolizer_func(s, 0, a_addr);
	CHECK("symbolizer stripped: exported", f && !strcmp(f->name, "alpha"),
	      "got %s", f ? f->name : "nothing");
	f = vgl_symbolizer_func(s, 0, h_addr);
	CHECK("symbolizer stripped: static unknown", f == NULL,
	      "got %s", f ? f->name : "");
	CHECK("symbolizer stripped: no line",
	      vgl_symbolizer_line(s, 0, a_addr, &file, &line) == -ENOENT,
	      "got %s:%d", file ? file : "?", line);
	vgl_symbolizer_free(s);

	/* Stripped with a .gnu_debuglink: symbols and lines from the debug
	 * file next to it. */
	s = open1(linked, NULL, 0, 0);
	f = vgl_symbolizer_func(s, 0, h_addr);
	CHECK("symbolizer debug file: static", f && !strcmp(f->name, "hidden"),
	      "got %s", f ? f->name : "nothing");
	CHECK("symbolizer debug file: line",
	      vgl_symbolizer_line(s, 0, a_addr, &file, &line) == 0 &&
	      !strcmp(file, "fixture.c") && line == a_line,
	      "got %s:%d, addr2line says %d", file ? file : "?", line, a_line);
	vgl_symbolizer_free(s);

	/* A build-id that is not the file's: one warning, no names. */
	{
		static const uint8_t wrong[20] = { 1, 2, 3 };
		struct lookup l = { open1(so, wrong, sizeof(wrong), 0), a_addr, NULL };

		err = capture_stderr(do_lookup, &l);
		CHECK("symbolizer mismatched build-id: no name", l.f == NULL,
		      "got %s", l.f ? l.f->name : "");
		CHECK("symbolizer mismatched build-id: one warning",
		      count_lines(err) == 1 && strstr(err, so) &&
		      strstr(err, "build-id differs"), "stderr: %s", err);
		free(err);
		vgl_symbolizer_free(l.s);
	}

	/* A FIFO: refused at once, never opened for a blocking read. */
	{
		struct lookup l = { open1(fifo, NULL, 0, 0), 0x1000, NULL };
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		err = capture_stderr(do_lookup, &l);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		CHECK("symbolizer FIFO: refused", l.f == NULL &&
		      count_lines(err) == 1 && strstr(err, "not a regular file"),
		      "stderr: %s", err);
		CHECK("symbolizer FIFO: at once", t1.tv_sec - t0.tv_sec < 2,
		      "took %lld s", (long long)(t1.tv_sec - t0.tv_sec));
		free(err);
		vgl_symbolizer_free(l.s);
	}

	/* A missing module: one warning naming it. */
	{
		struct lookup l = { open1("/nonexistent/libx.so", NULL, 0, 0),
				    0x1000, NULL };

		err = capture_stderr(do_lookup, &l);
		CHECK("symbolizer missing module", l.f == NULL &&
		      count_lines(err) == 1 && strstr(err, "/nonexistent/libx.so"),
		      "stderr: %s", err);
		free(err);
		vgl_symbolizer_free(l.s);
	}

	/* This process, from /proc/self/maps: libc's malloc is found. */
	{
		struct vgl_symbolizer *ps = NULL;
		size_t i, n;
		int ok = 0;

		if (vgl_symbolizer_from_pid(&ps, getpid()) == 0) {
			n = vgl_symbolizer_count(ps);
			for (i = 0; i < n && !ok; i++) {
				f = vgl_symbolizer_func(ps, i, (uint64_t)(uintptr_t)&mkfifo);
				ok = f && !strcmp(f->name, "mkfifo");
			}
		}
		CHECK("symbolizer from /proc/PID/maps", ok, "mkfifo not found");
		vgl_symbolizer_free(ps);
	}

	test_lines_by_cu();
	sh("rm -rf %s", dir);
	return check_status();
}
