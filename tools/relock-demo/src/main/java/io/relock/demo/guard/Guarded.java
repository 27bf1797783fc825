package io.relock.demo.guard;

import java.util.Optional;

/**
 * What a purchase run by a {@link PurchaseGuard} returned, and what went wrong when it left the
 * critical section. A failed release never changes the purchase's outcome, which was decided
 * before it.
 *
 * @param result what the purchase returned
 * @param releaseProblem what went wrong while leaving (a lost lease, Redis unreachable), for the
 *     response and the log; empty when the release was clean or the strategy cannot tell
 */
public record Guarded<T>(T result, Optional<String> releaseProblem) {}
