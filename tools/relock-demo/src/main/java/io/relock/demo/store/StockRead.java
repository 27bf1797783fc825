package io.relock.demo.store;

/**
 * What the read at the start of a purchase found.
 *
 * @param status whether the read was made
 * @param stock the stock, when {@code status} is {@link Status#READ}
 * @param fence the newest fencing token the item had seen, when {@code status} is {@link
 *     Status#STALE_TOKEN}
 */
public record StockRead(Status status, long stock, long fence) {

  /** The outcomes of a read. */
  public enum Status {
    /** The stock was read (and a fenced read registered its token). */
    READ,
    /** Refused: the item has seen a newer fencing token, so the caller's lease is no longer the newest. */
    STALE_TOKEN,
    /** No such item. */
    UNKNOWN_ITEM
  }
}
