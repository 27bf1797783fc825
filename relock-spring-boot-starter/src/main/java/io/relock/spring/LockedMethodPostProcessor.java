package io.relock.spring;

import io.relock.Relock;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Puts a proxy in front of every bean with {@link Locked} methods, after checking each such method
 * when the bean is created: a mistake in the annotation fails startup, naming the method.
 *
 * <p>The proxy subclasses the bean (CGLIB), and its lock is the outermost advice: a transaction
 * or other advice runs inside the lock. It runs before {@code @Scheduled} processing, so a
 * scheduled job is called through it.
 */
public class LockedMethodPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
    implements EnvironmentAware, DisposableBean {

  private static final long serialVersionUID = 1L;

  private final transient Map<Method, LockedMethod> methods = new ConcurrentHashMap<>();
  private transient BeanFactory beanFactory;
  private transient Environment environment;
  private transient LockedInterceptor interceptor;

  /**
   * A post-processor that proxies by subclassing (CGLIB), puts its advice before any the bean
   * already has, and is ordered just before {@code @Scheduled} processing ({@code
   * LOWEST_PRECEDENCE - 100}). Usually created by {@link LockedAutoConfiguration}.
   */
  public LockedMethodPostProcessor() {
    setProxyTargetClass(true);
    setBeforeExistingAdvisors(true);
    // Before ScheduledAnnotationBeanPostProcessor (LOWEST_PRECEDENCE), which keeps the bean it sees.
    setOrder(Ordered.LOWEST_PRECEDENCE - 100);
  }

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    super.setBeanFactory(beanFactory);
    this.beanFactory = beanFactory;
    this.interceptor = new LockedInterceptor(this::lockedMethod, beanFactory);
    this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, Locked.class, true), interceptor);
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (!(bean instanceof AopInfrastructureBean)) {
      inspect(AopUtils.getTargetClass(bean), beanName);
    }
    return super.postProcessAfterInitialization(bean, beanName);
  }

  /** Checks every {@link Locked} method of {@code type}; throws for the first that cannot work. */
  private void inspect(Class<?> type, String beanName) {
    Class<?> user = ClassUtils.getUserClass(type);
    if (!AnnotationUtils.isCandidateClass(user, Locked.class)) {
      return;
    }
    ReflectionUtils.doWithMethods(user, method -> {
      Locked locked = AnnotatedElementUtils.findMergedAnnotation(method, Locked.class);
      if (locked == null || method.isBridge()) {
        return;
      }
      if (Modifier.isFinal(user.getModifiers())) {
        throw new IllegalStateException("@Locked on " + LockedMethod.describe(method) + " cannot take effect: bean '"
            + beanName + "' is of the final class " + user.getName() + ", which Spring's proxy cannot subclass");
      }
      if (!hasRelock()) {
        throw new IllegalStateException("@Locked on " + LockedMethod.describe(method) + " (bean '" + beanName
            + "') needs a Relock bean, and there is none: set spring.data.redis.* for the auto-configured one"
            + " (relock.enabled=false turns it off), or define your own");
      }
      methods.computeIfAbsent(method, m -> LockedMethod.of(m, locked, context()));
    }, ReflectionUtils.USER_DECLARED_METHODS);
  }

  private boolean hasRelock() {
    return beanFactory instanceof ListableBeanFactory l && l.getBeanNamesForType(Relock.class, true, false).length > 0;
  }

  /** The checked method behind one call through the proxy. */
  private LockedMethod lockedMethod(MethodInvocation invocation) {
    Method method = invocation.getMethod();
    if (invocation.getThis() != null) {
      method = AopUtils.getMostSpecificMethod(method, AopUtils.getTargetClass(invocation.getThis()));
    }
    Method specific = BridgeMethodResolver.findBridgedMethod(method);
    return methods.computeIfAbsent(specific, m -> {
      Locked locked = AnnotatedElementUtils.findMergedAnnotation(m, Locked.class);
      if (locked == null) {
        throw new IllegalStateException("no @Locked on " + LockedMethod.describe(m));
      }
      return LockedMethod.of(m, locked, context());
    });
  }

  private LockedMethod.Context context() {
    ConfigurableBeanFactory cbf = (ConfigurableBeanFactory) beanFactory;
    return new LockedMethod.Context() {
      @Override
      public String resolvePlaceholders(String value) {
        String resolved = cbf.resolveEmbeddedValue(value);
        return resolved == null ? "" : resolved;
      }

      @Override
      public Locked.OnLost defaultOnLost() {
        return Binder.get(environment).bind("relock.locked.on-lost", Locked.OnLost.class).orElse(Locked.OnLost.LOG);
      }

      @Override
      public boolean containsBean(String name) {
        return cbf.containsBean(name);
      }

      @Override
      public boolean hasLostLeaseHandlers() {
        return cbf instanceof ListableBeanFactory l
            && l.getBeanNamesForType(LostLeaseHandler.class, true, false).length > 0;
      }

      @Override
      public BeanFactoryResolver beanResolver() {
        return new BeanFactoryResolver(cbf);
      }
    };
  }

  /** Releases at once the locks that {@link Locked#holdAtLeast()} still holds. */
  @Override
  public void destroy() {
    if (interceptor != null) {
      interceptor.destroy();
    }
  }
}
