package io.relock.spring;

import java.lang.reflect.Method;

/**
 * A lease of a {@link Locked} method found lost while the method ran (or, with {@link
 * Locked#holdAtLeast()}, before its delayed release).
 *
 * @param lockName the lock's name
 * @param fencingToken the lost lease's fencing token: writes carrying it may have been refused, or
 *     may have overlapped with the next holder's where the resource does not check tokens
 * @param method the {@link Locked} method
 */
public record LostLease(String lockName, long fencingToken, Method method) {}
