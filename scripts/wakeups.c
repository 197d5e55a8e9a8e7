/*
 * wakeups: how late two SCHED_FIFO threads, pinned one to each of the
 * first two cores, wake for the same 1 ms grid, and how often both are
 * late at the same deadline. A deadline both miss is one no thread of the
 * machine could have met: the whole machine stopped (on a virtual machine,
 * the host paused it). The README's design decisions quote it.
 *
 *   gcc -O2 -pthread -o wakeups scripts/wakeups.c && sudo ./wakeups 60 [LOG]
 *
 * Prints ticks later than 1 ms and later than 300 us for each thread and
 * for the earlier of the two, and the worst lateness of each. With LOG it
 * also writes there a line "# start_ns deadlines" and, for every deadline
 * either thread woke more than 100 us after, a line
 * "deadline_ns late0_ns late1_ns": the deadline as a
 * CLOCK_MONOTONIC reading, which haptex's session.json and bench JSON give
 * their clock's origin in ("clock"), and scripts/hostpauses.py matches the
 * two.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long *late[2];
static long long start;
static int n;

static long long now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *run(void *arg)
{
	int c = (int)(long)arg;
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(c, &s);
	if (pthread_setaffinity_np(pthread_self(), sizeof s, &s))
		fprintf(stderr, "core %d: cannot pin\n", c);
	struct sched_param p = {.sched_priority = 80};
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &p))
		fprintf(stderr, "core %d: SCHED_FIFO not permitted\n", c);
	for (int k = 0; k < n; k++) {
		long long d = start + (long long)k * 1000000;
		struct timespec ts = {d / 1000000000, d % 1000000000};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		late[c][k] = now() - d;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	n = 1000 * (argc > 1 ? atoi(argv[1]) : 60);
	if (n <= 0)
		return 2;
	FILE *log = NULL;
	if (argc > 2 && !(log = fopen(argv[2], "w"))) {
		perror(argv[2]);
		return 1;
	}
	late[0] = calloc(n, sizeof(long long));
	late[1] = calloc(n, sizeof(long long));
	pthread_t t[2];
	start = now() + 10000000;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, run, (void *)(long)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	int over[3] = {0}, over300[3] = {0};
	long long worst[3] = {0};
	if (log)
		fprintf(log, "# %lld %d\n", start, n);
	for (int k = 0; k < n; k++) {
		long long v[3] = {late[0][k], late[1][k], 0};
		if (log && (v[0] > 100000 || v[1] > 100000))
			fprintf(log, "%lld %lld %lld\n", start + (long long)k * 1000000, v[0], v[1]);
		v[2] = v[0] < v[1] ? v[0] : v[1];
		for (int j = 0; j < 3; j++) {
			over[j] += v[j] > 1000000;
			over300[j] += v[j] > 300000;
			if (v[j] > worst[j])
				worst[j] = v[j];
		}
	}
	printf("late>1ms core0 %d core1 %d both %d | >300us core0 %d core1 %d both %d | worst %.2f %.2f both %.2f ms\n",
	       over[0], over[1], over[2], over300[0], over300[1], over300[2],
	       worst[0] / 1e6, worst[1] / 1e6, worst[2] / 1e6);
	if (log && fclose(log)) {
		perror(argv[2]);
		return 1;
	}
	return 0;
}
