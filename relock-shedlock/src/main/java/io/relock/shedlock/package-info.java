/**
 * ShedLock on relock: {@link io.relock.shedlock.RelockLockProvider}, a ShedLock {@code
 * ExtensibleLockProvider} whose scheduled-job locks are relock locks, with fencing tokens ({@link
 * io.relock.shedlock.RelockSimpleLock#fencingToken()}, {@link
 * io.relock.shedlock.RelockLockProvider#currentFencingToken()}). Start with the provider's class
 * documentation.
 */
package io.relock.shedlock;
