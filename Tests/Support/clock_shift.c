/* Preloaded into a program (LD_PRELOAD), moves its wall clock CLOCK_SHIFT_MS milliseconds
 * ahead: a test that needs a real program across a wall-clock minute sets its clock a few
 * seconds before one instead of waiting up to a minute for the next. The monotonic clocks,
 * and so every wait and timeout, are left as they are. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long long shift_ms;
static int (*real_clock_gettime)(clockid_t, struct timespec *);
static int (*real_gettimeofday)(struct timeval *, void *);

__attribute__((constructor)) static void load(void) {
    const char *value = getenv("CLOCK_SHIFT_MS");
    shift_ms = value ? atoll(value) : 0;
    real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    real_gettimeofday = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    // Another library's constructor may ask the time before this one's ran.
    if (!real_clock_gettime) load();
    int result = real_clock_gettime(id, ts);
    if (result == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) {
        long long ns = (long long)ts->tv_nsec + (shift_ms % 1000) * 1000000LL;
        ts->tv_sec += shift_ms / 1000 + ns / 1000000000LL;
        ts->tv_nsec = ns % 1000000000LL;
    }
    return result;
}

int gettimeofday(struct timeval *tv, void *tz) {
    if (!real_gettimeofday) load();
    int result = real_gettimeofday(tv, tz);
    if (result == 0) {
        long long us = (long long)tv->tv_usec + (shift_ms % 1000) * 1000LL;
        tv->tv_sec += shift_ms / 1000 + us / 1000000LL;
        tv->tv_usec = us % 1000000LL;
    }
    return result;
}

time_t time(time_t *t) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (t) *t = ts.tv_sec;
    return ts.tv_sec;
}
