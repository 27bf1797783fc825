/*
 * clockstep: a preload library that steps one redis-server's wall clock, for relock-torture's
 * clock-step-master fault. Built by ClockShim with the machine's C compiler and loaded with
 * LD_PRELOAD into the Redlock masters of that run only.
 *
 * Redis reads the wall clock with gettimeofday(): key expiry (PX), TIME, the cached unixtime.
 * This library replaces gettimeofday() and adds an offset in milliseconds, read from the file that
 * RELOCK_CLOCK_OFFSET_FILE names (one decimal number, "0" at first; the nemesis rewrites it to
 * step the clock). The file is read again at most every 20 ms of real time. The monotonic clock
 * (clock_gettime(CLOCK_MONOTONIC)) is left alone, as a step of the system clock would leave it.
 *
 * libfaketime would do this, but it cannot be preloaded into a redis-server built with jemalloc
 * (Debian's): jemalloc calls clock_gettime() while libfaketime initialises, and the process
 * aborts. This library intercepts only gettimeofday() and calls the kernel directly, so it needs
 * neither dlsym() nor malloc().
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#define REREAD_US 20000LL

static long long offset_ms;
static long long read_at_us = -REREAD_US;

static long long parse(const char *s, ssize_t n) {
  long long v = 0;
  int negative = 0;
  ssize_t i = 0;
  if (i < n && (s[i] == '-' || s[i] == '+')) {
    negative = s[i] == '-';
    i++;
  }
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
    v = v * 10 + (s[i] - '0');
  }
  return negative ? -v : v;
}

static long long current_offset_ms(long long real_us) {
  long long last = __atomic_load_n(&read_at_us, __ATOMIC_RELAXED);
  if (real_us - last < REREAD_US && real_us >= last) {
    return __atomic_load_n(&offset_ms, __ATOMIC_RELAXED);
  }
  __atomic_store_n(&read_at_us, real_us, __ATOMIC_RELAXED);
  const char *path = getenv("RELOCK_CLOCK_OFFSET_FILE");
  if (path != NULL) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      char buf[32];
      ssize_t n = read(fd, buf, sizeof buf);
      close(fd);
      if (n > 0) {
        __atomic_store_n(&offset_ms, parse(buf, n), __ATOMIC_RELAXED);
      }
    }
  }
  return __atomic_load_n(&offset_ms, __ATOMIC_RELAXED);
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
  int rc = (int) syscall(SYS_gettimeofday, tv, tz);
  if (rc != 0) {
    return rc;  /* glibc declares tv non-null, and so does Redis's every call */
  }
  long long real_us = (long long) tv->tv_sec * 1000000LL + tv->tv_usec;
  long long us = real_us + current_offset_ms(real_us) * 1000LL;
  tv->tv_sec = (time_t) (us / 1000000LL);
  tv->tv_usec = (suseconds_t) (us % 1000000LL);
  return 0;
}
