package io.relock.demo.store;

/**
 * What the write of a purchase did. The write is all or nothing: stock and order together, or neither.
 *
 * @param status whether the sale was recorded
 * @param orderNumber the new order's number (1 for the first order of the sale), when recorded
 * @param fence the newest fencing token the item had seen, when refused as stale
 */
public record SaleWrite(Status status, long orderNumber, long fence) {

  /** The outcomes of a write. */
  public enum Status {
    /** Stock and order were written. */
    RECORDED,
    /** Refused: the item has seen a newer fencing token; nothing was written. */
    STALE_TOKEN,
    /** The item disappeared meanwhile; nothing was written. */
    UNKNOWN_ITEM
  }
}
