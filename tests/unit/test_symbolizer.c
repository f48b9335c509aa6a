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

/* Compares lines of so (with .debug_aranges) and noar (without) at every
 * byte of so's functions, and, at each function's start, with addr2line. */
static void compare_lines(const char *what, const char *so, const char *noar,
			  size_t want_starts)
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
		for (x = a; x < a + size; x++) {
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
			if (x == a && strlen(name) == 2) {
				starts++;
				if (r1 || l1 != addr2line(so, x))
					bad_starts++;
			}
		}
	}
	if (p)
		pclose(p);
	snprintf(label, sizeof(label),
		 "symbolizer lines by CU, %s: every byte as from the whole table",
		 what);
	CHECK(label, compared > 150 && with_line > 100 && differ == 0,
	      "%zu addresses, %zu with a line, %zu differ", compared, with_line,
	      differ);
	snprintf(label, sizeof(label),
		 "symbolizer lines by CU, %s: each function's start as addr2line",
		 what);
	CHECK(label, starts == want_starts && bad_starts == 0,
	      "%zu of %zu differ", bad_starts, starts);
	vgl_symbolizer_free(s1);
	vgl_symbolizer_free(s2);
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
	struct vgl_symbolizer *s;
	const char *file = NULL;
	int line = 0, want;

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
	s = open1(so, NULL, 0, 0);
	CHECK("symbolizer line at another CU's sequence end",
	      vgl_symbolizer_line(s, 0, e_addr, &file, &line) == 0 &&
	      !strcmp(file, "early.c") && line == want && want > 0,
	      "got %s:%d, addr2line says %d", file ? file : "?", line, want);
	vgl_symbolizer_free(s);
	/* The same read whole, in one table (no .debug_aranges). */
	snprintf(so, sizeof(so), "%s/seq-noar.so", dir);
	s = open1(so, NULL, 0, 0);
	file = NULL;
	line = 0;
	CHECK("symbolizer line at another CU's sequence end, one table",
	      vgl_symbolizer_line(s, 0, e_addr, &file, &line) == 0 &&
	      !strcmp(file, "early.c") && line == want && want > 0,
	      "got %s:%d, addr2line says %d", file ? file : "?", line, want);
	vgl_symbolizer_free(s);
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
		compare_lines("GCC", row, noar, 7);
		compare_lines("GCC and a Clang CU", mixed, mnoar, 7);
	}
	test_sequence_end();
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
