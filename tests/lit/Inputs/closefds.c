/*
 * closefds.c - a program that closes every descriptor it did not open, as
 * daemons do, then opens a file of its own, which gets the number of the
 * runtime's profile descriptor.  Then 4096 new call edges make the runtime
 * want to grow its file: it must never touch the program's file.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) void f(void) { sink++; }

#define C4(x) x x x x
#define CALLS C4(C4(C4(C4(C4(C4(f();))))))

int main(int argc, char **argv)
{
	struct stat st;
	int fd, i;

	if (argc < 2)
		return 2;
	f();
	for (i = 3; i < 1024; i++)
		close(i);
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "mine\n", 5) != 5)
		return 1;
	CALLS
	if (fstat(fd, &st) < 0)
		return 1;
	printf("fd %s, size %lld\n", fd == 3 ? "3" : "other",
	       (long long)st.st_size);
	return 0;
}
