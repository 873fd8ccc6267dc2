/* clock.h - the monotonic clock, in milliseconds: what every timing in
 * attnscope (bench, the trainer's speed, a search's time, the pool's
 * polling) reads. */
#ifndef ATTNSCOPE_CLOCK_H
#define ATTNSCOPE_CLOCK_H

/* Milliseconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double clock_ms(void);

#endif
