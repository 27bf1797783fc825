package io.relock.demo.load;

/** How the load driver counts one purchase request, from the service's status and error code. */
public enum Outcome {
  /** 200: one unit sold. */
  SOLD,
  /** 409 sold_out: the buyer saw no stock. Expected once the stock is gone; not an error. */
  SOLD_OUT,
  /** 429 lock_busy: the lock stayed taken for the strategy's whole wait. A lock error. */
  LOCK_BUSY,
  /** 409 stale_token: the lease was lost and the store refused the fenced write. A lock error. */
  STALE_TOKEN,
  /** 503: Redis unreachable. */
  REDIS_UNAVAILABLE,
  /** Anything else: another status, or no answer at all. */
  FAILED;

  /** Whether this outcome counts as a lock error. */
  public boolean isLockError() {
    return this == LOCK_BUSY || this == STALE_TOKEN;
  }

  /** Whether this outcome counts as an error of any kind (lock errors included). */
  public boolean isError() {
    return this != SOLD && this != SOLD_OUT;
  }

  /** The outcome of an answer with {@code status} and error {@code code} (may be null). */
  public static Outcome of(int status, String code) {
    if (status == 200) {
      return SOLD;
    }
    if (status == 409 && "sold_out".equals(code)) {
      return SOLD_OUT;
    }
    if (status == 409 && "stale_token".equals(code)) {
      return STALE_TOKEN;
    }
    if (status == 429) {
      return LOCK_BUSY;
    }
    if (status == 503) {
      return REDIS_UNAVAILABLE;
    }
    return FAILED;
  }
}
