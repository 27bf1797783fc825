package io.relock.micrometer;

import io.micrometer.observation.Observation;
import io.relock.LockObserver;

/**
 * What a {@link RelockObservations} observation carries: one lock wait ({@value
 * RelockObservations#WAIT}) or one hold ({@value RelockObservations#HOLD}). Handlers and
 * conventions may read it; relock writes it. The outcome, the fencing token and whether the lock
 * came by hand-over are set before the observation stops.
 */
public final class RelockObservationContext extends Observation.Context {
  private final LockObserver.Kind kind;
  private final String lockName;
  private final String topology;
  private volatile LockObserver.Outcome outcome;
  private volatile long fencingToken = -1;
  private volatile boolean handedOver;
  private volatile boolean reentry;

  /** Named at once, so that handlers choosing by name (chosen before a convention names it) see it. */
  RelockObservationContext(String name, LockObserver.Kind kind, String lockName, String topology) {
    setName(name);
    this.kind = kind;
    this.lockName = lockName;
    this.topology = topology;
  }

  /**
   * What was acquired.
   *
   * @return the kind of lock
   */
  public LockObserver.Kind kind() {
    return kind;
  }

  /**
   * The lock's name.
   *
   * @return the name the caller gave (a multi-lock's names, separated by commas)
   */
  public String lockName() {
    return lockName;
  }

  /**
   * The client's topology.
   *
   * @return {@link io.relock.Relock#topology()} of the observed client
   */
  public String topology() {
    return topology;
  }

  /**
   * How the wait or hold ended.
   *
   * @return the outcome; null while it goes on
   */
  public LockObserver.Outcome outcome() {
    return outcome;
  }

  /**
   * The hold's fencing token.
   *
   * @return the token; -1 until the lock is acquired
   */
  public long fencingToken() {
    return fencingToken;
  }

  /**
   * Whether the lock came by hand-over.
   *
   * @return true if a previous holder's release handed it over, false if it was found free
   */
  public boolean handedOver() {
    return handedOver;
  }

  /**
   * Whether the acquisition was a re-entry.
   *
   * @return true if a thread that already held the lock took it again
   */
  public boolean reentry() {
    return reentry;
  }

  void acquired(long token, boolean byHandOver, boolean again) {
    this.fencingToken = token;
    this.handedOver = byHandOver;
    this.reentry = again;
  }

  void ended(LockObserver.Outcome how) {
    this.outcome = how;
  }
}
