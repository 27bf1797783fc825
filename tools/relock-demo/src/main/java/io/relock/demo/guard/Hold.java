package io.relock.demo.guard;

import java.util.Optional;
import java.util.OptionalLong;

/** One purchase's stay in the critical section of an item, for strategies that enter and leave it by hand. */
interface Hold {

  /** The fencing token to write with; empty for strategies that have none. */
  OptionalLong fencingToken();

  /**
   * Leaves the critical section. Never throws: by the time of release the purchase has its outcome,
   * which a failed release does not change.
   *
   * @return what went wrong while releasing (a lost lease, Redis unreachable), for the response and
   *     the log; empty when the release was clean or the strategy cannot tell
   */
  Optional<String> release();
}
