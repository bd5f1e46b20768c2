/*
 * N openat() calls of a path that does not exist: one hit a call of
 * do_sys_openat2 in the kernel, whose file name a kprobe event can carry
 * as a string.  Prints its own wall time and system CPU time in seconds.
 * usage: fx_open N
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	long n = argc > 1 ? atol(argv[1]) : 100000, i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		if (open("/nonexistent/abc", O_RDONLY) >= 0)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (getrusage(RUSAGE_SELF, &ru))
		return 2;
	printf("wall %.6f sys %.6f\n", b.tv_sec - a.tv_sec + (b.tv_nsec - a.tv_nsec) / 1e9,
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return 0;
}
