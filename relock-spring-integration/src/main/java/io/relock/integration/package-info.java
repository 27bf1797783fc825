/**
 * Spring Integration on relock: {@link io.relock.integration.RelockLockRegistry}, a {@code
 * LockRegistry} (expirable and renewable) whose locks are relock locks, a drop-in for {@code
 * RedisLockRegistry} and the registry behind {@code LockRegistryLeaderInitiator}. Start with the
 * registry's class documentation.
 */
package io.relock.integration;
