package io.relock.demo.production;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The in-process sold-out flag of each item: once Redis has said a sale is sold out, this process
 * answers the rest of that sale's buyers from memory, without a Redis call. The flag belongs to one
 * sale (by id): the announcement of a newer sale clears it, and a late sold-out answer of an older
 * sale, still in flight when the new one started, cannot set it again. Thread-safe.
 */
public final class SoldOutFlags {

  /** The newest sale this process knows of for an item, and whether it is sold out. */
  private record Flag(long sale, boolean soldOut) {}

  private final ConcurrentMap<String, Flag> flags = new ConcurrentHashMap<>();

  /** Whether this process knows {@code item}'s current sale to be sold out. */
  public boolean isSoldOut(String item) {
    Flag flag = flags.get(item);
    return flag != null && flag.soldOut();
  }

  /** Redis answered that sale {@code sale} of {@code item} is sold out. */
  public void markSoldOut(String item, long sale) {
    flags.merge(item, new Flag(sale, true), (known, seen) -> seen.sale() >= known.sale() ? seen : known);
  }

  /** Sale {@code sale} of {@code item} has started: the flag of any older sale goes. */
  public void saleStarted(String item, long sale) {
    flags.merge(item, new Flag(sale, false), (known, started) -> started.sale() > known.sale() ? started : known);
  }
}
