/*
 * The highest rate of one probe a workload can make: N reads of one byte
 * of /dev/zero (ksys_read in the kernel), or N calls of a function (a
 * uprobe).  Prints its own wall time and CPU time in seconds, so a
 * benchmark can tell what tracing it costs the traced program: to
 * stdout, or to OUT (when its stdout is a tracer's).
 * usage: fx_loop read|call N [OUT]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) int fx_step(int i)
{
	asm volatile("" ::: "memory");
	return i & 7;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	long n = argc > 2 ? atol(argv[2]) : 100000, i;
	int fd = open("/dev/zero", O_RDONLY), sum = 0;
	char c;

	if (argc < 3 || fd < 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++) {
		if (!strcmp(argv[1], "read")) {
			if (read(fd, &c, 1) != 1)
				return 1;
		} else {
			sum += fx_step(i);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	getrusage(RUSAGE_SELF, &ru);
	if (argc > 3 && !freopen(argv[3], "w", stdout))
		return 2;
	printf("wall %.6f cpu %.6f sum %d\n", b.tv_sec - a.tv_sec + (b.tv_nsec - a.tv_nsec) / 1e9,
	       ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6, sum);
	return 0;
}
