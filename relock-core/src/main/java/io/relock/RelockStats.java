package io.relock;

/**
 * What a {@link Relock} client has under way at one moment, from {@link Relock#stats()}. Local
 * figures: reading them never contacts Redis.
 *
 * @param holds locks this client holds: each open lease, and each thread's {@code lock()} holds
 *     counted once, from the acquisition until its release starts
 * @param acquiring acquisitions under way: waiting for a lock, or waiting for Redis to answer
 * @param leasesAtRisk watchdog-renewed leases whose last renewal call failed (Redis slow or
 *     unreachable), counted when the watchdog's last tick began: they will be lost unless a
 *     renewal succeeds before their lease runs out. 0 when the watchdog keeps up.
 */
public record RelockStats(int holds, int acquiring, int leasesAtRisk) {}
