package io.relock.internal;

import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the client hears on its notification channels, and who it is for: a grant to one of this
 * client's waiters, a notice that another client freed a lock one of its owners holds (a forced
 * unlock), a Redlock master's word that it freed a lock. Each message is parsed here and posted, as
 * an event, to the lock state it names; a grant to an owner id this client no longer serves is
 * withdrawn. The channels themselves (the client's, and on a sharded cluster each waited-for
 * lock's) are subscribed by the engine, which hands every message to {@link #onNotification}.
 */
final class Notifications {
  /** The engine's logger (see {@link LeaseKeeper}). */
  private static final Logger log = LoggerFactory.getLogger(LockEngine.class);

  /**
   * How a notice that another client freed a lock held by one of this client's owners begins:
   * {@code "lost <owner> <lock key>"}; see force_unlock.lua.
   */
  private static final String LOST = "lost ";
  /** How a notification that a lock was freed (not handed over) begins; see redlock_release.lua. */
  private static final String FREED = "free ";

  /** Every owner id of this client starts with it. */
  private final String ownerPrefix;
  /** The engine's lock states, by state key; null for a name nothing is under way for. */
  private final Function<String, LockState> states;
  /** Whether the client is closed: a grant for nobody is then left to expire. */
  private final BooleanSupplier closed;
  private final LockCalls calls;

  Notifications(String ownerPrefix, Function<String, LockState> states, BooleanSupplier closed, LockCalls calls) {
    this.ownerPrefix = ownerPrefix;
    this.states = states;
    this.closed = closed;
    this.calls = calls;
  }

  /**
   * A grant: {@code "<token> <owner> <state key>"}, published by the releasing script (the state key
   * is the lock key, with a suffix for the shared kinds: see {@link LockKind#stateKey}); or, from
   * a Redlock node, {@code "free <lock key>"}: the lock was freed there, waiters try again.
   */
  void onNotification(String message) {
    if (message.startsWith(LOST)) {
      int space = message.indexOf(' ', LOST.length());
      String owner = space < 0 ? "" : message.substring(LOST.length(), space);
      LockState state = owner.startsWith(ownerPrefix) ? states.apply(message.substring(space + 1)) : null;
      if (state != null) {
        state.post(() -> state.lostNotice(owner));
      }
      return;
    }
    if (message.startsWith(FREED)) {
      LockState state = states.apply(message.substring(FREED.length()));
      if (state != null) {
        state.post(state::freed);
      }
      return;
    }
    int first = message.indexOf(' ');
    int second = message.indexOf(' ', first + 1);
    long serial;
    long token;
    try {
      // "<serial>" where the grant's serial is its token, else "<serial>:<token>" (a read lock's)
      String head = message.substring(0, Math.max(0, first));
      int colon = head.indexOf(':');
      serial = Long.parseLong(colon < 0 ? head : head.substring(0, colon));
      token = colon < 0 ? serial : Long.parseLong(head.substring(colon + 1));
    } catch (NumberFormatException e) {
      serial = -1;
      token = -1;
    }
    if (first < 0 || second < 0 || token < 0 || serial < 0) {
      log.warn("ignoring malformed notification '{}'", message);
      return;
    }
    String owner = message.substring(first + 1, second);
    if (log.isTraceEnabled()) {
      log.trace("{} notified {}", owner, message);
    }
    String stateKey = message.substring(second + 1);
    if (!owner.startsWith(ownerPrefix)) {
      // Another client's grant: a lock's sharded channel carries the grants of every client that
      // waits for it. Never treat it as an orphan of ours (withdrawing it would free their lock).
      return;
    }
    LockState state = states.apply(stateKey);
    if (state != null) {
      long grantedSerial = serial;
      long granted = token;
      state.post(() -> state.granted(owner, grantedSerial, granted));
    } else if (!closed.getAsBoolean()) {
      String lockKey = LockKind.lockKeyOf(stateKey);
      calls.withdrawOrphan(LockKind.ofStateKey(stateKey), LockKeys.ofLockKey(lockKey, lockKey), owner);
    }
  }
}
