package com.example.stock;

import java.util.HashMap;
import java.util.Map;

/**
 * The resource the locks protect: stock counts, kept by a store that accepts a write only with a
 * fencing token at least as high as the highest it has accepted for that item. A caller whose lease
 * ran out while it was paused comes back with an older token and is refused, so it cannot overwrite
 * what the next holder wrote. (Here in memory; a database would keep the token in the row.)
 */
public final class Warehouse {

  private final Map<String, Integer> stock = new HashMap<>();
  private final Map<String, Long> highestToken = new HashMap<>();

  public synchronized void put(String sku, int count) {
    stock.put(sku, count);
  }

  public synchronized int count(String sku) {
    return stock.getOrDefault(sku, 0);
  }

  /** Sets the count of {@code sku}, refusing a token older than the newest one seen for it. */
  public synchronized void write(String sku, int count, long fencingToken) {
    long highest = highestToken.getOrDefault(sku, 0L);
    if (fencingToken < highest) {
      throw new IllegalStateException(
          "stale write to " + sku + ": token " + fencingToken + " < " + highest);
    }
    highestToken.put(sku, fencingToken);
    stock.put(sku, count);
  }
}
