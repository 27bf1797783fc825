package io.relock.spring;

import io.relock.LockLostException;
import java.lang.reflect.Method;

/**
 * A {@link Locked} method with {@link Locked.OnLost#THROW} ran to its end, but its lease was lost
 * meanwhile: another holder may have run at the same time. What the method returned is attached,
 * so that a caller that can tell (for instance, because its writes carried the fencing token) may
 * still use it. The cause is the {@link LockLostException} the release threw.
 */
public class LockedLeaseLostException extends LockLostException {
  private static final long serialVersionUID = 1L;

  private final transient Object returnValue;
  private final transient Method method;

  /**
   * An exception for a {@link Locked} method whose lease was lost while it ran.
   *
   * @param lockName the lock's name
   * @param method the method that ran
   * @param returnValue what it returned (for a future, what the future completed with; null for
   *     {@code void} and publishers)
   * @param cause what the release threw
   */
  public LockedLeaseLostException(String lockName, Method method, Object returnValue, LockLostException cause) {
    super(lockName, "while " + method.getDeclaringClass().getSimpleName() + "." + method.getName()
        + "(..) ran (" + cause.getMessage() + ")");
    initCause(cause);
    this.method = method;
    this.returnValue = returnValue;
  }

  /**
   * What the method returned; null for {@code void}, a {@code Mono} or {@code Flux}.
   *
   * @return the method's result (for a future, what the future completed with), or null; not
   *     kept when the exception is serialized
   */
  public Object returnValue() {
    return returnValue;
  }

  /**
   * The {@link Locked} method that ran.
   *
   * @return the method; not kept when the exception is serialized
   */
  public Method method() {
    return method;
  }
}
