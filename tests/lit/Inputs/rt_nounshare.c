/*
 * rt_nounshare.c - runs a command where the kernel refuses close_range()
 * and unshare() (EPERM from a seccomp filter), as container runtimes'
 * filters of before close_range and sandboxed services do: a thread then
 * cannot give itself a descriptor table of its own.
 *   rt_nounshare CMD ARGS...
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_close_range, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (argc < 2)
		return 2;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		perror("rt_nounshare: seccomp");
		return 2;
	}
	execvp(argv[1], argv + 1);
	perror("rt_nounshare: exec");
	return 127;
}
