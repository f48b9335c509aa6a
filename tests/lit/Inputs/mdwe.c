/* mdwe.c PROG ARGS... - runs PROG with the kernel's memory-deny-write-
 * execute policy on (prctl PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, Linux
 * 6.3 on), which execve keeps: no mapping may become writable and
 * executable, nor executable after it was not. */
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#endif
#ifndef PR_MDWE_REFUSE_EXEC_GAIN
#define PR_MDWE_REFUSE_EXEC_GAIN 1
#endif

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) < 0) {
		perror("mdwe: prctl(PR_SET_MDWE)");
		return 1;
	}
	execv(argv[1], argv + 1);
	perror("mdwe: execv");
	return 127;
}
