/* pool.h - the engine's own worker threads, one per OpenBLAS thread.
 *
 * The forward pass's products are small (M = 16 … 256 rows): OpenBLAS's
 * own threads spend more time waking up and yielding than computing on
 * them.  Instead the pass splits each product into a few tasks per thread
 * (blocks of output columns of a linear layer, the heads of an attention,
 * blocks of LayerNorm rows), and every task calls single-threaded sgemm:
 * pool_run sets OpenBLAS to one thread while it runs. */
#ifndef ATTNSCOPE_POOL_H
#define ATTNSCOPE_POOL_H

/* fn(arg, task, ntasks) for task = 0 … ntasks-1, spread over the threads
 * (the calling thread takes tasks too); returns when every task is done.
 * Tasks must be independent.  A call from inside a task, or from a second
 * thread while the pool is busy, runs the tasks in order on the calling
 * thread. */
typedef void (*pool_fn)(void *arg, int task, int ntasks);
void pool_run(pool_fn fn, void *arg, int ntasks);

/* pool_hot(1) … pool_hot(0) around a pass or a search (nested calls
 * count): in between, idle workers poll for the next run for up to 2 ms
 * instead of 50 µs before they sleep. */
void pool_hot(int on);

/* The threads pool_run spreads tasks over: OpenBLAS's thread count
 * (OPENBLAS_NUM_THREADS, else the CPUs) when the pool first starts; 1 when
 * its threads cannot be made. */
int pool_threads(void);

#endif
