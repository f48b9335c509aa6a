/*
 * vgl_format.h - the .vgl profile format, defined once for the writer (the
 * runtime in runtime/) and every reader (lib/vgl_reader.c and the tools).
 *
 * A .vgl file is written in two ways:
 *
 *   live     by the counting runtime, through a shared file mapping, from
 *            the first instrumented call on.  The file grows at its end while
 *            the program runs; counts change in place.  It is complete at
 *            every instant, whatever way the program ends.
 *   whole    by the interval thread (window snapshots) and the tools
 *            (merge), into a temporary name that is renamed when complete.
 *
 * Layout (all integers in the writer's byte order, which the header records;
 * readers refuse an order other than their own):
 *
 *   offset 0     struct vgl_header            (magic .. checksum)
 *                struct vgl_section[nsections] (the table of sections)
 *   ...          sections, each at its own offset, 8-byte aligned:
 *     META       struct vgl_meta: pid, times, state, exit status, ...
 *     STRINGS    NUL-terminated strings that META points into by offset
 *     ARENA      struct vgl_arena, then a sequence of blocks
 *                (struct vgl_block + payload), each 8-byte aligned
 *     SAMPLES    (optional) struct vgl_samples, then the samples of a
 *                sampled run: process and per-thread CPU, memory, host CPU
 *     STACKS     (optional) struct vgl_stacks, then CPU stack samples,
 *                their frames named by module id + runtime address
 *     STACK_READINGS (optional) struct vgl_stack_readings, then which
 *                reading of SAMPLES each stack's samples came in
 *
 * The header checksum covers the header and the section table, which the
 * writer never changes after creating the file.  Everything that changes
 * while a program runs (META's state and times, ARENA's used size, the
 * per-block item counts and the counts themselves) lives in the sections.
 *
 * Compatibility rule: readers skip sections and blocks of kinds they do not
 * know.  A change that an old reader would misread bumps VGL_VERSION; old
 * readers then refuse the file with "unsupported version".
 *
 * Liveness: the writer holds no descriptor of the file (a program may close
 * every descriptor it did not open), only mappings, one of which keeps an
 * OFD lock on the file for the writer's life (procid.h), whatever its pid
 * namespace or host.  META records who it is: pid, start time and boot id,
 * which a pid reused later does not share; where no lock is held, a reader
 * asks /proc whether that process still exists (not as a zombie) and
 * still maps the file (an exec unmaps it).  Only when the writer is not
 * there (vgl_writer_alive()) is a file final: RUNNING then means the
 * program was cut short; FINISHED means it exited (exit handlers and
 * destructors may count until it is gone).
 *
 * docs/format.md describes the same bytes for people.
 */
#ifndef VGL_FORMAT_H
#define VGL_FORMAT_H

#include <stdint.h>

#define VGL_MAGIC "VIGILPRF"   /* 8 bytes, no terminator in the file */
#define VGL_MAGIC_LEN 8
#define VGL_VERSION 1
#define VGL_BYTE_ORDER 0x01020304u  /* as the writer stores it natively */

/* Section kinds. */
enum vgl_section_kind {
	VGL_SEC_META = 1,
	VGL_SEC_STRINGS = 2,
	VGL_SEC_ARENA = 3,
	VGL_SEC_SAMPLES = 4,   /* optional; any file kind may hold it */
	VGL_SEC_STACKS = 5,    /* optional; any file kind may hold it */
	VGL_SEC_PROCESSES = 6, /* optional; a merge's processes and how they
	                        * ended (struct vgl_processes) */
	VGL_SEC_STACK_READINGS = 7, /* optional, with SAMPLES and STACKS: how
	                             * many samples of each stack each
	                             * sample record (reading) got */
};

struct vgl_section {
	uint32_t kind;        /* enum vgl_section_kind */
	uint32_t flags;       /* none defined yet; readers ignore */
	uint64_t offset;      /* from the start of the file, 8-aligned */
	uint64_t size;        /* bytes reserved; for ARENA, an upper bound: the
	                       * bytes in use are vgl_arena.used */
};

struct vgl_header {
	char magic[VGL_MAGIC_LEN];   /* VGL_MAGIC */
	uint32_t version;            /* VGL_VERSION */
	uint32_t byte_order;         /* VGL_BYTE_ORDER */
	uint32_t header_size;        /* sizeof header + nsections * sizeof section */
	uint32_t nsections;
	uint32_t checksum;           /* vgl_crc32 of header_size bytes with this
	                              * field taken as 0 */
	uint32_t reserved;           /* 0 */
	/* struct vgl_section sections[nsections] follows */
};

#define VGL_MAX_SECTIONS 64

/* What wrote the file. */
enum vgl_kind {
	VGL_KIND_LIVE = 1,      /* the runtime's live counting file */
	VGL_KIND_WINDOW = 2,    /* an interval snapshot: counts of one window */
	VGL_KIND_MERGED = 3,    /* written whole by a tool */
	VGL_KIND_SAMPLED = 4,   /* written whole by `vigil attach -o`: no
	                         * counts, SAMPLES and STACKS of a process
	                         * watched from outside */
};

/* META.state.  A RUNNING file whose writer is gone was cut short. */
enum vgl_state {
	VGL_STATE_RUNNING = 1,
	VGL_STATE_FINISHED = 2,   /* exit() or return from main; exit_status set */
	VGL_STATE_CUT_SHORT = 3,  /* recorded by a tool that knows (readers
	                           * also derive it from RUNNING + writer
	                           * gone) */
};

/* META.flags */
#define VGL_META_INCOMPLETE 0x1u  /* some counts could not be stored in the
                                   * file (disk full); lost_calls says how
                                   * many calls were counted elsewhere */
#define VGL_META_SWITCHED 0x2u    /* FINISHED because the program moved on
                                   * to another file (vigil_set_file), not
                                   * because it exited: exit_status is 0.
                                   * SAMPLED: the process exec'd another
                                   * program, sampled into another file
                                   * (vigil run --scan) */
#define VGL_META_DETACHED 0x4u    /* SAMPLED: FINISHED because the sampler
                                   * stopped (stop, signal, --duration,
                                   * --count) while the process ran on:
                                   * exit_status is 0 */
/*
 * Which hook counted (LIVE and WINDOW files, and merges of them): the
 * enter hook of -finstrument-functions, which counts every inlined copy of
 * a function too, or __fentry__ (-pg -mfentry), which counts real calls
 * only.  Both bits: one process used both (an entry-mode program that
 * loaded an enter/exit-mode library).  Neither: a file from before these
 * bits, which only the enter hook wrote, or one with no call counted.
 */
#define VGL_META_MODE_ENTER 0x8u
#define VGL_META_MODE_ENTRY 0x10u
#define VGL_META_MODES (VGL_META_MODE_ENTER | VGL_META_MODE_ENTRY)

#define VGL_NO_STRING UINT32_MAX  /* a string offset that names nothing */

struct vgl_meta {
	uint32_t kind;            /* enum vgl_kind */
	uint32_t state;           /* enum vgl_state */
	int32_t exit_status;      /* valid when state == FINISHED */
	uint32_t flags;           /* VGL_META_* */
	uint64_t pid;
	uint64_t ppid;
	uint64_t start_ns;        /* CLOCK_REALTIME, ns since the epoch */
	uint64_t end_ns;          /* 0 while running or when cut short */
	uint64_t window_start_ns; /* WINDOW files: the window's bounds */
	uint64_t window_end_ns;
	uint64_t window_seq;      /* WINDOW files: 1, 2, ... */
	uint64_t lost_calls;      /* calls counted outside the file */
	uint32_t exe;             /* STRINGS offsets, or VGL_NO_STRING */
	uint32_t host;
	uint32_t cmdline;         /* argc strings back to back, each NUL-ended */
	uint32_t cmdline_len;     /* bytes of the cmdline strings, NULs included */
	uint64_t skipped_calls;   /* calls made before the runtime could count
	                           * them (instrumented IFUNC resolvers, which
	                           * run before TLS exists); in no edge */
	uint64_t proc_start;      /* the writer's start time: field 22 of
	                           * /proc/PID/stat (clock ticks after boot);
	                           * 0 when unknown */
	uint8_t boot_id[16];      /* /proc/sys/kernel/random/boot_id of the
	                           * writer's boot; all 0 when unknown */
	uint64_t windows;         /* LIVE: window snapshots written so far */
	uint64_t windowed_calls;  /* LIVE: calls those windows hold, lost ones
	                           * included; the rest of the profile's calls
	                           * are in no window (an exec or a kill cut
	                           * the last one short) */
	uint64_t reserved[2];
};

/*
 * The PROCESSES section of a merged file: how many processes the merge
 * holds and how they ended, so a merge of 403 runs is not read as one
 * process that exited with the highest status.  A header, then nendings
 * entries, one per (state, exit status), sorted by state then status,
 * their processes adding up to `processes`.  A merge of merged files adds
 * their sections up; a file without one is one process.
 */
struct vgl_processes {
	uint64_t processes;
	uint32_t nendings;
	uint32_t reserved;        /* 0 */
	/* struct vgl_ending endings[nendings] follows */
};

struct vgl_ending {
	uint32_t state;           /* VGL_STATE_*: FINISHED (exit_status
	                           * valid), CUT_SHORT, or RUNNING (a snapshot
	                           * taken while it ran) */
	int32_t exit_status;      /* FINISHED only; 0 otherwise */
	uint64_t processes;
};

/* The ARENA section starts with this, then blocks up to offset `used`. */
struct vgl_arena {
	uint64_t used;            /* bytes of the arena in use, this header
	                           * included; the writer advances it only after
	                           * a new block's header is complete */
	uint64_t reserved[7];     /* pads the header to 64 bytes: the runtime
	                           * starts blocks on cache lines */
};

enum vgl_block_kind {
	VGL_BLOCK_MODULE = 1,  /* payload: struct vgl_module + path */
	VGL_BLOCK_EDGES = 2,   /* payload: struct vgl_edge[capacity] */
};

struct vgl_block {
	uint32_t kind;         /* enum vgl_block_kind */
	uint32_t owner;        /* EDGES: the tid of the thread that added
	                        * it (a later thread may count into it once
	                        * that one has ended); MODULE: 0 */
	uint64_t size;         /* bytes, header included, multiple of 8 */
	uint64_t count;        /* EDGES: entries filled (written last, with
	                        * release order); MODULE: 1 */
	uint64_t reserved;
};

#define VGL_BUILD_ID_MAX 32

/*
 * A loaded object.  `bias` is its load bias (runtime address minus ELF
 * virtual address); [lo, hi) is the address range of its loadable segments.
 * Module ids are given in load order from 0, and never reused.
 */
struct vgl_module {
	uint32_t id;
	uint32_t build_id_len;      /* 0 .. VGL_BUILD_ID_MAX */
	uint64_t bias;
	uint64_t lo;
	uint64_t hi;
	uint8_t build_id[VGL_BUILD_ID_MAX];
	uint32_t path_len;          /* bytes of path, NUL not included */
	uint32_t flags;             /* VGL_MODULE_*; 0 in files written before
	                             * there were any (the field was reserved) */
	/* char path[path_len + 1] follows, NUL-terminated; then, with
	 * VGL_MODULE_FILE, a struct vgl_module_file at the next multiple of
	 * 8 bytes from the start of struct vgl_module */
};

/*
 * vgl_module.flags.  Old readers ignore the field and the bytes after the
 * path (they check only that the path fits in the block), so this needs
 * no new VGL_VERSION.
 */
#define VGL_MODULE_FILE 0x1u   /* a struct vgl_module_file follows */

/*
 * What identifies the file of a module that has no build-id, so that a
 * reader can tell whether the file at its path is still the one that ran
 * (a program rebuilt in place keeps its path, not its addresses).
 */
struct vgl_module_file {
	uint64_t size;              /* st_size of the file at load time */
	uint64_t mtime_ns;          /* its st_mtim, ns since the epoch */
	uint32_t load_crc;          /* vgl_crc32 of the bytes of its PT_LOAD
	                             * segments that are readable and not
	                             * writable (p_filesz bytes each, in
	                             * program-header order): the code and
	                             * read-only data, as in memory and on disk */
	uint32_t flags;             /* VGL_FILE_* */
};

#define VGL_FILE_STAT 0x1u     /* size and mtime_ns are known (the file
                                * could be stat'ed at load time) */
#define VGL_FILE_CRC 0x2u      /* load_crc is known (the runtime always
                                * knows it; a sampler may not read it) */

#define VGL_NO_MODULE UINT32_MAX

/*
 * One call edge: `callee` was entered from the call whose return address is
 * `site`.  Both are runtime addresses of the writing process; callee_mod
 * and site_mod name the modules they fall in (VGL_NO_MODULE if none), so
 * a reader gets ELF addresses as addr - module.bias.  The same edge may
 * appear in several blocks (one per thread); readers add them up.
 */
struct vgl_edge {
	uint64_t callee;
	uint64_t site;
	uint64_t count;
	uint32_t callee_mod;
	uint32_t site_mod;
};

/*
 * SAMPLES: struct vgl_samples, then `count` records, each a struct
 * vgl_sample (sample_size bytes) followed by its nthreads thread records
 * (thread_size bytes each).  The sizes are the writer's: a later writer
 * may append fields, which older readers skip; a reader refuses sizes
 * smaller than the first version's (VGL_SAMPLE_SIZE_V1, 48 for threads)
 * and reads the fields a shorter record lacks as 0.  Every size is a
 * multiple of 8.
 */
struct vgl_samples {
	uint64_t count;           /* samples that follow */
	uint32_t sample_size;     /* bytes of each struct vgl_sample */
	uint32_t thread_size;     /* bytes of each struct vgl_sample_thread */
	uint64_t reserved[2];
};

/* vgl_sample.scan: which fields of a sample are filled.  The bits are the
 * sampler's (and debugserver's scan_type) for the same data. */
#define VGL_SAMPLE_HOST_CPU 0x1u   /* host_*_us */
#define VGL_SAMPLE_CPU 0x2u        /* cpu_user_us, cpu_sys_us */
#define VGL_SAMPLE_THREADS 0x4u    /* the thread records */
#define VGL_SAMPLE_MEMORY 0x40u    /* rss .. swap */
#define VGL_SAMPLE_STACKS 0x200u   /* stack_samples */

struct vgl_sample {
	uint64_t time_ns;         /* CLOCK_REALTIME, ns since the epoch */
	uint64_t elapsed_ns;      /* since META.start_ns (monotonic clock) */
	uint32_t scan;            /* VGL_SAMPLE_* */
	uint32_t nthreads;        /* thread records that follow */
	uint64_t cpu_user_us;     /* the process's CPU time since it started, */
	uint64_t cpu_sys_us;      /* ended threads included */
	uint64_t rss_bytes;
	uint64_t anon_bytes;
	uint64_t file_bytes;
	uint64_t swap_bytes;
	uint64_t host_user_us;    /* every CPU of the host, since the */
	uint64_t host_sys_us;     /* previous sample (since boot in the */
	uint64_t host_idle_us;    /* first) */
	uint64_t host_iowait_us;
	uint64_t stack_samples;   /* CPU stack samples since the previous
	                           * sample (their stacks are in STACKS) */
	/* Since format 1.x's first SAMPLES (VGL_SAMPLE_SIZE_V1 bytes, which
	 * readers still take, reading these as 0): */
	uint64_t interval_ns;     /* the sampling interval in force; 0 unknown */
	uint64_t cpu_run_ns;      /* the process's time on a CPU, ns (its CPU
	                           * clock: sub-tick); 0 unknown */
};

/* The size of a struct vgl_sample before interval_ns and cpu_run_ns. */
#define VGL_SAMPLE_SIZE_V1 112u

/* One live thread of a sample. */
struct vgl_sample_thread {
	uint32_t tid;
	uint32_t reserved;
	char name[16];            /* NUL-terminated (comm) */
	uint64_t user_us;         /* CPU time since the thread started */
	uint64_t sys_us;
	uint64_t run_ns;          /* time on a CPU (schedstat) */
};

/*
 * STACKS: struct vgl_stacks, then `count` records, each a struct
 * vgl_stack followed by nframes struct vgl_frame.  One record per
 * distinct (thread, call chain) of the whole run, with how many CPU
 * samples found it.  Frame 0 is where the thread was; the others are
 * return addresses (a symbolizer looks them up at addr - 1).
 */
struct vgl_stacks {
	uint64_t count;           /* stack records that follow */
	uint64_t samples;         /* CPU samples in all (sum of counts) */
	uint64_t lost;            /* samples the kernel dropped */
	uint32_t frequency;       /* Hz asked for (the last in force) */
	uint32_t reserved;
};

#define VGL_STACK_MAX_FRAMES 1024

struct vgl_stack {
	uint32_t tid;
	uint32_t nframes;         /* 1 .. VGL_STACK_MAX_FRAMES */
	uint64_t count;           /* CPU samples of this stack, >= 1 */
};

/* A runtime address of the sampled process and the MODULE it falls in
 * (VGL_NO_MODULE when none), as in struct vgl_edge. */
struct vgl_frame {
	uint64_t addr;              /* VGL_KERNEL_ADDR: in the kernel */
	uint32_t module;
	uint32_t reserved;
};

/*
 * STACK_READINGS: struct vgl_stack_readings, then `count` entries, one
 * per (reading, stack) that got samples: a reading is a record of
 * SAMPLES (its index in file order), a stack a record of STACKS.  Sorted
 * by reading then stack, each pair once, every count at least 1; each
 * stack's entries add up to its count, so the stacks of any set of
 * readings are a part of STACKS, exactly.  A reading's entries add up
 * to its stack_samples, within what the writer could not place: a
 * sample without a frame is in no stack, and the stacks of the image
 * before an exec, which the writer learns of only after that image's
 * last reading, go to that reading (the last of its file, under `vigil
 * run`, which gives each image a file).  Readers do not require it.
 * Written only beside SAMPLES and STACKS of the same run: a merge,
 * which keeps no readings, has none.  Readers that do not know it skip it, and read
 * the stacks as of the whole run, which they are.
 */
struct vgl_stack_readings {
	uint64_t count;           /* entries that follow */
	uint64_t reserved;        /* 0 */
};

struct vgl_stack_reading {
	uint32_t reading;         /* a SAMPLES record, 0 .. count - 1 */
	uint32_t stack;           /* a STACKS record, 0 .. count - 1 */
	uint64_t count;           /* samples of that stack in that reading */
};

/* The address of frame 0 of a sample taken while the thread ran in the
 * kernel on its behalf (module VGL_NO_MODULE): readers name it
 * "[kernel]", and the frames after it are the user frames that entered
 * the kernel.  perf's PERF_CONTEXT_KERNEL; no user address has the top
 * bit set. */
#define VGL_KERNEL_ADDR 0xffffffffffffff80ull

#define VGL_ALIGN(x) (((x) + 7u) & ~(uint64_t)7u)

#endif
