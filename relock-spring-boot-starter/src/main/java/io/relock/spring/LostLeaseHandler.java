package io.relock.spring;

/**
 * Hears every lease of a {@link Locked} method that is lost: declare beans of this type to alert,
 * count or compensate. Called once per lost lease, on a thread of the starter's executor, whatever
 * {@link Locked#onLost()} says. A handler that throws is logged and does not affect the method or
 * the other handlers.
 */
@FunctionalInterface
public interface LostLeaseHandler {

  /**
   * {@code lost} was noticed: by a renewal that found the lock gone or taken, or at release.
   *
   * @param lost which lease was lost: the lock's name, the lease's fencing token and the method
   */
  void leaseLost(LostLease lost);
}
