/*
 * rt_suid_exec.c - a setuid-root program that becomes root wholly
 * (setuid(0): real, effective and saved ids) and runs a command as root
 * with the environment it was given:  rt_suid_exec CMD ARGS...
 * The command's exec is no secure execution (it gains nothing), so the
 * environment must not carry the user's VIGIL_* settings to it.
 */
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) void become_root(void)
{
	if (setgid(0) < 0 || setuid(0) < 0)
		perror("rt_suid_exec: setuid");
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	become_root();
	execv(argv[1], argv + 1);
	perror("rt_suid_exec: exec");
	return 127;
}
