package io.relock.demo.service;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * The outcome of one purchase. Failures that leave no outcome (lock busy, Redis unreachable) are
 * exceptions instead.
 *
 * @param status what happened
 * @param item the item
 * @param strategy the lock strategy used
 * @param orderNumber the order's number in this sale, when {@link Status#SOLD}
 * @param stockLeft the stock written back, when {@link Status#SOLD}
 * @param fencingToken the token the purchase read and wrote with, for strategies that have one
 * @param newestToken the newer token the store had seen, when {@link Status#STALE_TOKEN}
 * @param releaseProblem what went wrong when leaving the critical section (e.g. the lease had been
 *     lost), if anything
 */
public record PurchaseResult(
    Status status,
    String item,
    String strategy,
    long orderNumber,
    long stockLeft,
    OptionalLong fencingToken,
    long newestToken,
    Optional<String> releaseProblem) {

  /** The outcomes of a purchase. */
  public enum Status {
    /** One unit sold; the order is recorded. */
    SOLD,
    /** The stock read was zero; nothing written. */
    SOLD_OUT,
    /** No such item. */
    UNKNOWN_ITEM,
    /**
     * The purchase's lease was lost and a newer holder reached the store first: the store refused
     * the fenced read or write, nothing written.
     */
    STALE_TOKEN
  }

  static PurchaseResult of(Status status, String item, String strategy, OptionalLong token) {
    return new PurchaseResult(status, item, strategy, 0, 0, token, 0, Optional.empty());
  }

  PurchaseResult withReleaseProblem(Optional<String> problem) {
    return new PurchaseResult(status, item, strategy, orderNumber, stockLeft, fencingToken, newestToken, problem);
  }
}
