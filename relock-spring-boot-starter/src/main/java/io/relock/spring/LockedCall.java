package io.relock.spring;

import java.lang.reflect.Method;

/**
 * The root object of a {@link Locked} name expression: {@code #root.method.name}, {@code
 * #root.target}, {@code #root.args[0]}.
 *
 * @param method the {@link Locked} method
 * @param target the bean it is called on
 * @param args the arguments of the call
 */
public record LockedCall(Method method, Object target, Object[] args) {}
