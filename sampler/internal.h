/*
 * internal.h - what the sampler's files share and its users do not see:
 * the state of each data source and the helpers that read /proc files
 * through descriptors kept open (one pread per file per sample, since
 * reopening costs five times more: 19 us per thread against 3.9 us,
 * measured for the issue).
 */
#ifndef VIGIL_SAMPLER_INTERNAL_H
#define VIGIL_SAMPLER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sampler.h"

/* Formats err (if not NULL) and returns code, a negative errno. */
int sampler_err(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Reads the whole of fd (from offset 0, up to len - 1 bytes) into buf and
 * ends it with a NUL.  Returns the length, or a negative errno. */
ssize_t proc_pread(int fd, char *buf, size_t len);

/* Microseconds per clock tick (sysconf(_SC_CLK_TCK)). */
uint64_t proc_tick_us(void);

/*
 * Splits the text of a /proc/.../stat line: *comm gets the name between
 * the first '(' and the last ')' (copied, at most 15 bytes), and fields
 * [0..] the fields after it, starting with the state (field 3 of proc(5)
 * is fields[0]).  Returns how many fields it found, or -EINVAL.
 */
int proc_split_stat(char *text, char *comm, size_t commlen, char **fields,
		    int maxfields);

/* ---- threads.c: per-thread CPU, names, state --------------------------- */
struct thread_slot;

struct threads_state {
	int taskfd;                 /* /proc/PID/task, kept open */
	struct thread_slot *slots;  /* sorted by tid */
	size_t nslots, cap;
	struct sampler_thread *out; /* the sample's array */
	size_t cap_out;
	pid_t *ended;
	size_t nended, cap_ended;
	int primed;                 /* a scan has run: later ones mark new */
	pid_t pid;                  /* the leader's tid */
	/* The sampler's stop_ns: 0, or when a scan is cut short. */
	const uint64_t *cut_ns;
};

/* cut_ns: read (atomically) between threads; NULL: never cut. */
int threads_init(struct threads_state *t, int procfd, pid_t pid,
		 const uint64_t *cut_ns);
/* Rescans the task list and reads every live thread; fills s->threads,
 * s->ended.  Returns 0, -ECANCELED when *cut_ns has passed (the scan was
 * cut short and nothing is handed out; the slots stay valid, but only a
 * stop cuts a scan, so no scan is meant to follow), or a negative
 * errno. */
int threads_scan(struct threads_state *t, struct sampler_sample *s);
void threads_release(struct threads_state *t);
/* The state letter of the first thread that is not a zombie, or 0. */
char threads_live_state(struct threads_state *t);

/* ---- process.c: state, CPU, memory, I/O of the whole process ----------- */
struct process_state {
	int procfd;        /* /proc/PID, a directory */
	int statfd, statusfd, iofd;
	int io_errno;      /* why iofd is -1 */
	uint64_t last_user_us, last_sys_us, last_run_ns;
	int cpu_primed;
	clockid_t clock;   /* the process's CPU clock */
	int clock_ok;
	char exe[4096];
	int exe_known;
};

int process_init(struct process_state *p, pid_t pid, char *err,
		 size_t errlen);
/* State letter and the whole-process CPU (SAMPLER_SCAN_CPU). */
int process_scan_stat(struct process_state *p, struct sampler_sample *s);
int process_scan_memory(struct process_state *p, struct sampler_sample *s);
int process_scan_io(struct process_state *p, struct sampler_sample *s);
/* Reads the exe link into p->exe; sets s->exe, s->exe_changed. */
void process_scan_exe(struct process_state *p, struct sampler_sample *s);
/* An exec seen elsewhere (the stack rings) when the exe link could not
 * be read (the process ended): path becomes p->exe and s->exe, changed
 * when it differs. */
void process_take_exe(struct process_state *p, struct sampler_sample *s,
		      const char *path);
/* The wait status: from the target's pidfd (Linux 6.15: even once
 * reaped), else from the zombie's stat (field 52).  Returns 0 or a
 * negative errno (the process is gone, reaped by another). */
int process_exit_status(struct process_state *p, int pidfd, int *status);
void process_release(struct process_state *p);

/* ---- host.c: the host's CPU and memory --------------------------------- */
struct host_state {
	int statfd, meminfofd;
	uint64_t last[4];  /* user, sys, idle, iowait in us */
};

int host_init(struct host_state *h);
int host_scan_cpu(struct host_state *h, struct sampler_sample *s);
int host_scan_memory(struct host_state *h, struct sampler_sample *s);
void host_release(struct host_state *h);

/* ---- counts.c: exact call counts from the target's mapped .vgl ------- */
struct vgl_edge_info;

/* ---- live.c: counting switched on and off in an idle ondemand program -- */
struct live_state {
	pid_t pid;
	int procfd, pidfd;          /* the sampler's; not closed here */
	int taskfd;                 /* /proc/PID/task, the sampler's */
	int looked;                 /* this image's control block looked for */
	uint64_t ctl;               /* its address in the target; 0: none */
	uint64_t cand;              /* an ondemand image's block, not idle
	                             * (yet, or counting from its start) */
	int on;                     /* its sites switched on by us */
	uint64_t sites;             /* sites changed by the last switch */
	uint64_t switches;          /* switches made, on and off */
	uint64_t switch_ns;         /* how long the last one's writes took */
	int memfd, memfd_target;    /* the runtime's memfd, ours; its number
	                             * there */
	char path[32];              /* /proc/self/fd/N of memfd */
	char err[256];              /* why the last switch failed, or "" */
};

int live_init(struct live_state *l, pid_t pid, int procfd, int pidfd,
	      int taskfd);
/* Switches counting on or off (nothing when it already is, or when the
 * target is no idle ondemand program).  Returns 0, or -errno with l->err
 * set. */
int live_set(struct live_state *l, int on);
/* Looks for the control block once per image: 1 when the target is an
 * idle ondemand program, which the next live_set(l, 1) switches on. */
int live_prepare(struct live_state *l);
/* What became of the image switched on: still on; replaced (an exec,
 * which /proc/PID/exe does not show when it is of the same file); or
 * switched off by another attach (then l->on is 0, and the next
 * live_set(l, 1) switches it on again). */
enum { LIVE_OURS, LIVE_REPLACED, LIVE_OFF_ELSEWHERE };
int live_check(struct live_state *l);
/* The memfd's path to read the profile at, once the runtime has one. */
const char *live_profile(struct live_state *l);
/* A new image (exec): its own block, looked for again. */
void live_forget(struct live_state *l);

struct counts_state {
	struct live_state live;
	int mapsfd;                 /* /proc/PID/maps */
	char path[4096];            /* the profile being read; "" = look */
	char prev_path[4096];       /* the file prev belongs to */
	struct vgl_edge_info *prev; /* the previous scan's edges, sorted */
	size_t nprev, cap_prev;
	struct sampler_edge *out;
	size_t cap_out;
	char err[4400];
	/* The live switch's windows (window.c). */
	const char *window_stem;    /* NAME of NAME.wNNNNNN.vgl; NULL: none */
	int in_window;              /* a window is open */
	int window_closing;         /* this reading ends it */
	struct vgl_edge_info *base; /* the totals when it began, sorted */
	size_t nbase;
	uint64_t window_start_ns, window_seq, window_calls;
	char window_file[4200];     /* the last one written, or "" */
};

/* The reader's order of edges, module ids included (counts.c). */
struct vgl_edge_info;
int counts_cmp_edge(const struct vgl_edge_info *a,
		    const struct vgl_edge_info *b);

/* A window begins after the reading just taken (its totals are the
 * base). */
void window_begin(struct counts_state *c, uint64_t now_ns);
/* Ends the window at reading r: writes its file when a stem is set.
 * ended: the process has ended (r is final).  Returns 0 or -errno. */
struct vgl_reader;
int window_write(struct counts_state *c, const struct vgl_reader *r,
		 uint64_t now_ns, int ended);

int counts_init(struct counts_state *c, pid_t pid, int procfd, int pidfd,
		int taskfd);
/* Reads the profile and fills s->edges with the counts since the previous
 * scan.  final: the target has ended (its maps are gone).  A target
 * without a profile gets s->counts_error, not an error.  Returns 0 or
 * -ENOMEM. */
int counts_scan(struct counts_state *c, struct sampler_sample *s, int final);
/* Looks the file up again at the next scan (after an exec). */
void counts_forget_file(struct counts_state *c);
void counts_release(struct counts_state *c);

/* ---- stacks.c: CPU stack samples with perf_event_open ------------------ */
struct stacks_state;

/* Opens a sampling event per thread of img's process per CPU (with inherit, so
 * threads created later are covered), one ring buffer per CPU.  Returns
 * 0 with *out set, or a negative errno with err naming the cause (and the
 * sysctl, for perf_event_paranoid). */
struct proc_image;
int stacks_open(struct stacks_state **out, struct proc_image *img, int taskfd,
		unsigned frequency, enum sampler_unwind unwind,
		unsigned stack_copy, char *err, size_t errlen);
/* The ring buffers' descriptors, to poll (readable when a sixteenth
 * full). */
size_t stacks_fds(struct stacks_state *st, int *fds, size_t max);
/* fd (one stacks_fds gave) polled as hung up: poll another instead. */
void stacks_hangup(struct stacks_state *st, int fd);
/* Drains the rings into the state's table of distinct stacks. */
void stacks_drain(struct stacks_state *st);
/* How many samples (taken or lost) the table holds since the last
 * stacks_take. */
uint64_t stacks_waiting(struct stacks_state *st);
/* Whether an exec of the target was among the records drained and its
 * stacks are not handed out yet (stacks_take). */
int stacks_exec_waiting(struct stacks_state *st);
/* The file of the program the target exec'd last, from the first code
 * mapped after the exec's record, or NULL (none seen yet). */
const char *stacks_exec_file(const struct stacks_state *st);
/* Whether the target mapped new code since the last call that cleared
 * it (seen among the records drained); clear: that call. */
int stacks_maps_changed(struct stacks_state *st, int clear);
/* Drains, then fills s->stacks from the table and empties it (the arrays
 * stay valid until the next call).  Returns 1 when the target exec'd
 * since the last call (the exec's record was in the rings; stacks of the
 * image before it are marked before_exec), else 0. */
int stacks_take(struct stacks_state *st, struct sampler_sample *s);
/* Drains old's rings and moves what it holds into st's table, so that
 * samples taken before a switch of events (a new frequency) come in the
 * next sample instead of being closed with old. */
void stacks_adopt(struct stacks_state *st, struct stacks_state *old);
void stacks_close(struct stacks_state *st);

#endif
