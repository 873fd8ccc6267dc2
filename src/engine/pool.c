/* pool.c - a fixed set of worker threads for the forward pass's products.
 *
 * A run publishes (fn, arg) and one state word: its generation, its task
 * count and the next task to claim.  Every thread, the caller included,
 * claims tasks from that word until none is left, so a thread that the
 * (shared, busy) machine deschedules holds up at most the task it is in,
 * and the caller never waits for a worker that has not started.  Between
 * runs the workers poll for ~50 µs (a pass issues a run every ~100 µs,
 * and a futex wake costs tens of µs), then sleep on a condition variable:
 * an idle program uses no CPU.  While a pass or a search runs (pool_hot)
 * they poll for up to 2 ms instead: its longer gaps (a softmax over the
 * vocabulary, the trace's copies) would otherwise put them to sleep
 * dozens of times a pass, and each time the next product starts on the
 * caller alone. */
#include <cblas.h>
#include <pthread.h>
#include <stdatomic.h>

#include "pool.h"
#include "base/clock.h"

#define MAX_THREADS 64
#define MAX_TASKS 0xffff
#define SPIN_MS 0.05
#define SPIN_HOT_MS 2.0

static struct {
	pthread_once_t once;
	int n;                      /* threads, workers + the caller */
	pthread_mutex_t run_lock;   /* one run at a time */
	pthread_mutex_t mu;
	pthread_cond_t wake, done_cv;
	/* gen << 32 | ntasks << 16 | next task */
	_Atomic unsigned long long state;
	atomic_int busy;            /* workers between joining and finishing */
	atomic_int hot;             /* pool_hot(1) calls not yet undone */
	pool_fn fn;                 /* written before state, while busy == 0 */
	void *arg;
} P = { .once = PTHREAD_ONCE_INIT, .n = 1,
	.run_lock = PTHREAD_MUTEX_INITIALIZER, .mu = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER, .done_cv = PTHREAD_COND_INITIALIZER };

static _Thread_local int in_task;   /* this thread runs a task */

static unsigned gen_of(unsigned long long s)
{
	return (unsigned)(s >> 32);
}

static int new_gen(unsigned seen)
{
	return gen_of(atomic_load(&P.state)) != seen;
}

static int workers_done(unsigned unused)
{
	return atomic_load(&P.busy) == 0;
}

/* Polls until done(v) or SPIN_MS (SPIN_HOT_MS while hot) have passed;
 * returns done(v). */
static int spin_until(int (*done)(unsigned), unsigned v)
{
	double t0 = 0;
	for (int i = 0; !done(v); i++) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
		if ((i & 31) == 31) {
			const double t = clock_ms();
			if (!t0)
				t0 = t;
			else if (t - t0 > (atomic_load(&P.hot) > 0 ? SPIN_HOT_MS : SPIN_MS))
				return done(v);
		}
	}
	return 1;
}

void pool_hot(int on)
{
	atomic_fetch_add(&P.hot, on ? 1 : -1);
}

/* Claims and runs tasks of the current run until none is left. */
static void run_tasks(void)
{
	unsigned long long s = atomic_load(&P.state);
	for (;;) {
		unsigned nt = (unsigned)(s >> 16) & MAX_TASKS, t = (unsigned)s & MAX_TASKS;
		if (t >= nt)
			return;
		if (atomic_compare_exchange_weak(&P.state, &s, s + 1)) {
			P.fn(P.arg, (int)t, (int)nt);
			s = atomic_load(&P.state);
		}
	}
}

static void *worker(void *unused)
{
	unsigned seen = 0;
	in_task = 1;
	for (;;) {
		if (!spin_until(new_gen, seen)) {
			pthread_mutex_lock(&P.mu);
			while (!new_gen(seen))
				pthread_cond_wait(&P.wake, &P.mu);
			pthread_mutex_unlock(&P.mu);
		}
		seen = gen_of(atomic_load(&P.state));
		atomic_fetch_add(&P.busy, 1);   /* before claiming: see pool_run */
		run_tasks();
		if (atomic_fetch_sub(&P.busy, 1) == 1) {
			pthread_mutex_lock(&P.mu);
			pthread_cond_signal(&P.done_cv);
			pthread_mutex_unlock(&P.mu);
		}
	}
	return NULL;
}

static void pool_start(void)
{
	int n = openblas_get_num_threads();
	n = n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	int made = 1;
	for (; made < n; made++) {
		pthread_t t;
		if (pthread_create(&t, &at, worker, NULL))
			break;
	}
	pthread_attr_destroy(&at);
	P.n = made;
}

int pool_threads(void)
{
	pthread_once(&P.once, pool_start);
	return P.n;
}

void pool_run(pool_fn fn, void *arg, int ntasks)
{
	if (ntasks <= 1 || ntasks > MAX_TASKS || in_task || pool_threads() == 1 ||
	    pthread_mutex_trylock(&P.run_lock)) {
		for (int t = 0; t < ntasks; t++)
			fn(arg, t, ntasks);
		return;
	}
	int blas = openblas_get_num_threads();
	openblas_set_num_threads(1);
	/* no worker is inside a task (busy was 0 when the last run ended,
	   and a late joiner finds that run's tasks all claimed) */
	P.fn = fn;
	P.arg = arg;
	unsigned long long g = gen_of(atomic_load(&P.state)) + 1ull;
	pthread_mutex_lock(&P.mu);
	atomic_store(&P.state, g << 32 | (unsigned long long)ntasks << 16);
	pthread_cond_broadcast(&P.wake);
	pthread_mutex_unlock(&P.mu);

	in_task = 1;
	run_tasks();
	in_task = 0;
	/* every task is claimed; wait for the workers still running one (a
	   worker that joins now finds nothing to claim) */
	if (!spin_until(workers_done, 0)) {
		pthread_mutex_lock(&P.mu);
		while (!workers_done(0))
			pthread_cond_wait(&P.done_cv, &P.mu);
		pthread_mutex_unlock(&P.mu);
	}
	openblas_set_num_threads(blas);
	pthread_mutex_unlock(&P.run_lock);
}
