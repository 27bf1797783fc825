package io.relock.spring;

import io.relock.LockLease;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.util.ClassUtils;

/**
 * One {@link Locked} method, checked and parsed once when its bean is created: every mistake the
 * annotation can hold fails there, naming the method.
 */
final class LockedMethod {

  /** How the method's result relates to the time the lock must be held. */
  enum Kind {
    /** A value (or void): held while the method runs. */
    PLAIN,
    /** A CompletableFuture or CompletionStage: held until it completes. */
    FUTURE,
    /** A Reactor Mono: held from subscription until it terminates. */
    MONO,
    /** A Reactor Flux: held from subscription until it terminates. */
    FLUX
  }

  private static final SpelExpressionParser PARSER = new SpelExpressionParser();
  private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();
  private static final Pattern POSITIONAL = Pattern.compile("[ap](\\d+)");

  private final Method method;
  private final String description;
  private final Expression nameExpression;
  private final String fixedName;
  private final Duration wait;
  private final Duration lease;
  private final Duration holdAtLeast;
  private final boolean skipOnTimeout;
  private final Locked.OnLost onLost;
  private final boolean interruptOnLost;
  private final Kind kind;
  private final int leaseParameter;
  private final boolean resultIsOptional;

  /** What the checks need from the application. */
  interface Context {
    /** Resolves {@code ${...}} placeholders. */
    String resolvePlaceholders(String value);

    /** The application's relock.locked.on-lost. */
    Locked.OnLost defaultOnLost();

    /** Whether a bean of this name exists, for {@code @name} in expressions. */
    boolean containsBean(String name);

    /** Whether any {@link LostLeaseHandler} bean is defined. */
    boolean hasLostLeaseHandlers();

    /** For {@code @name} in expressions. */
    BeanFactoryResolver beanResolver();
  }

  private final BeanFactoryResolver beanResolver;

  private LockedMethod(Method method, Locked locked, Context context) {
    this.method = method;
    this.description = describe(method);
    this.beanResolver = context.beanResolver();
    checkVisible(method);
    checkNotSuspending(method);
    this.kind = kindOf(method);
    this.leaseParameter = leaseParameter(method);

    String expression = resolve(context, "value", locked.value());
    if (expression.isBlank()) {
      this.nameExpression = null;
      this.fixedName = method.getDeclaringClass().getName() + "." + method.getName();
    } else {
      this.nameExpression = parse(expression, context);
      this.fixedName = null;
    }
    this.wait = duration(context, "waitTime", locked.waitTime(), true);
    if (wait == null) {
      throw fail("waitTime must be a duration such as 0s or 5s; it is empty");
    }
    this.lease = duration(context, "lease", locked.lease(), false);
    this.holdAtLeast = duration(context, "holdAtLeast", locked.holdAtLeast(), true);
    if (lease != null && lease.compareTo(Duration.ofMillis(1)) < 0) {
      throw fail("lease must be at least 1 ms, was " + lease);
    }
    if (lease != null && kind != Kind.PLAIN) {
      throw fail("a fixed lease (" + lease + ") works only on methods returning a value or void: methods returning"
          + " a future or publisher take the lock asynchronously, with the watchdog's lease; leave lease out");
    }
    if (lease != null && holdAtLeast != null && holdAtLeast.compareTo(lease) > 0) {
      throw fail("holdAtLeast (" + holdAtLeast + ") is longer than the fixed lease (" + lease
          + "), which would end first; shorten it or leave lease out");
    }

    boolean scheduled = MergedAnnotations.from(method, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
        .isPresent(Scheduled.class);
    Locked.OnTimeout onTimeout = locked.onTimeout();
    this.skipOnTimeout = onTimeout == Locked.OnTimeout.SKIP || (onTimeout == Locked.OnTimeout.DEFAULT && scheduled);
    Class<?> returned = method.getReturnType();
    if (skipOnTimeout && returned.isPrimitive() && returned != void.class) {
      throw fail("onTimeout SKIP cannot return a " + returned + " for a skipped call; return void, an object, an"
          + " Optional, a future or a publisher" + (scheduled ? " (SKIP is the default on @Scheduled methods)" : ""));
    }
    this.resultIsOptional = kind == Kind.FUTURE
        ? ResolvableType.forMethodReturnType(method).getGeneric(0).resolve(Object.class) == Optional.class
        : returned == Optional.class;

    Locked.OnLost chosen = locked.onLost() == Locked.OnLost.DEFAULT ? context.defaultOnLost() : locked.onLost();
    this.onLost = chosen == Locked.OnLost.DEFAULT ? Locked.OnLost.LOG : chosen;
    this.interruptOnLost = locked.interruptOnLost();
    if (interruptOnLost && (kind == Kind.MONO || kind == Kind.FLUX)) {
      throw fail("interruptOnLost works on methods returning a value, void or a future; a Mono or Flux is not"
          + " stopped on a loss (its subscription runs on until it ends): leave interruptOnLost out");
    }
    if (onLost == Locked.OnLost.CALLBACK && !context.hasLostLeaseHandlers()) {
      throw fail("onLost CALLBACK reports lost leases only to LostLeaseHandler beans, and there is none;"
          + " declare one, or choose LOG or THROW");
    }
  }

  /**
   * Checks and parses the {@link Locked} annotation of {@code method}.
   *
   * @throws IllegalStateException naming the method, for anything that cannot work
   */
  static LockedMethod of(Method method, Locked locked, Context context) {
    return new LockedMethod(method, locked, context);
  }

  private static void checkVisible(Method method) {
    int m = method.getModifiers();
    String why = null;
    if (Modifier.isPrivate(m)) {
      why = "it is private";
    } else if (Modifier.isStatic(m)) {
      why = "it is static";
    } else if (Modifier.isFinal(m)) {
      why = "it is final";
    } else if (Modifier.isFinal(method.getDeclaringClass().getModifiers())) {
      why = "its class is final";
    }
    if (why != null) {
      throw new IllegalStateException("@Locked on " + describe(method) + " cannot take effect: " + why
          + ", and Spring's proxy only sees calls to public, protected or package-private methods it can"
          + " override. Make it overridable, or the lock would silently not be taken");
    }
  }

  /**
   * A Kotlin {@code suspend} function compiles to a method whose last parameter is the
   * continuation; it returns to the proxy at its first suspension, while it still runs.
   */
  private static void checkNotSuspending(Method method) {
    Class<?>[] types = method.getParameterTypes();
    if (types.length > 0 && types[types.length - 1].getName().equals("kotlin.coroutines.Continuation")) {
      throw new IllegalStateException("@Locked on " + describe(method) + " cannot take effect: it is a Kotlin suspend"
          + " function, which returns to Spring's proxy at its first suspension, long before it ends, so the lock"
          + " would be released while it still runs. Take the lock inside it with relock-kotlin's"
          + " lock.withLease(wait) { ... } instead");
    }
  }

  private Kind kindOf(Method method) {
    Class<?> returned = method.getReturnType();
    if (returned == CompletableFuture.class || returned == CompletionStage.class) {
      return Kind.FUTURE;
    }
    if (returned.getName().equals("reactor.core.publisher.Mono")) {
      return Kind.MONO;
    }
    if (returned.getName().equals("reactor.core.publisher.Flux")) {
      return Kind.FLUX;
    }
    if (Future.class.isAssignableFrom(returned) || CompletionStage.class.isAssignableFrom(returned)
        || isPublisher(returned)) {
      throw fail("it returns " + returned.getName() + ", which @Locked cannot wait for: the lock would be"
          + " released as soon as the method returned it. Return CompletableFuture, CompletionStage, Mono, Flux,"
          + " or the value itself");
    }
    return Kind.PLAIN;
  }

  private static boolean isPublisher(Class<?> type) {
    for (Class<?> c : ClassUtils.getAllInterfacesForClassAsSet(type)) {
      if (c.getName().equals("org.reactivestreams.Publisher")) {
        return true;
      }
    }
    return type.getName().equals("org.reactivestreams.Publisher");
  }

  private int leaseParameter(Method method) {
    int found = -1;
    Class<?>[] types = method.getParameterTypes();
    for (int i = 0; i < types.length; i++) {
      if (types[i] == LockLease.class) {
        if (found >= 0) {
          throw fail("it has two LockLease parameters (" + found + " and " + i + "); the starter fills in one");
        }
        found = i;
      }
    }
    return found;
  }

  private String resolve(Context context, String attribute, String value) {
    try {
      return context.resolvePlaceholders(value);
    } catch (IllegalArgumentException e) {
      throw fail(attribute + " '" + value + "': " + e.getMessage());
    }
  }

  private Duration duration(Context context, String attribute, String text, boolean zeroAllowed) {
    String resolved = resolve(context, attribute, text).trim();
    if (resolved.isEmpty()) {
      return null;
    }
    Duration d;
    try {
      d = DurationStyle.detectAndParse(resolved);
    } catch (IllegalArgumentException e) {
      throw fail(attribute + " '" + resolved + "' is not a duration (such as 500ms, 5s or PT1M)");
    }
    if (d.isNegative() || (!zeroAllowed && d.isZero())) {
      throw fail(attribute + " must be " + (zeroAllowed ? "zero or more" : "positive") + ", was '" + resolved + "'");
    }
    return d;
  }

  private Expression parse(String text, Context context) {
    Expression parsed;
    try {
      parsed = PARSER.parseExpression(text);
    } catch (ParseException e) {
      throw fail("lock name \"" + text + "\" is not a valid SpEL expression: " + e.getMessage());
    }
    String[] names = PARAMETER_NAMES.getParameterNames(method);
    Set<String> known = new HashSet<>();
    if (names != null) {
      known.addAll(Arrays.asList(names));
    }
    List<String> unknown = new ArrayList<>();
    List<String> missingBeans = new ArrayList<>();
    visit(((SpelExpression) parsed).getAST(), node -> {
      if (node instanceof VariableReference) {
        String variable = node.toStringAST().substring(1);
        if (variable.equals("this") || variable.equals("root") || known.contains(variable)) {
          return;
        }
        var positional = POSITIONAL.matcher(variable);
        if (positional.matches() && Integer.parseInt(positional.group(1)) < method.getParameterCount()) {
          return;
        }
        unknown.add("#" + variable);
      } else if (node instanceof BeanReference bean) {
        String name = bean.getName().startsWith("&") ? bean.getName().substring(1) : bean.getName();
        if (!context.containsBean(name)) {
          missingBeans.add("@" + bean.getName());
        }
      }
    });
    if (!unknown.isEmpty()) {
      String have = names == null
          ? "parameter names are not in the class file (compile with -parameters, as Spring Boot's build plugins do),"
              + " so only #p0..#p" + (method.getParameterCount() - 1) + " work"
          : "the parameters are " + Arrays.stream(names).map(n -> "#" + n).collect(Collectors.joining(", "))
              + (names.length == 0 ? "(none)" : "") + " (or #p0, #a0 by position)";
      throw fail("lock name \"" + text + "\" uses " + String.join(", ", unknown) + ", which the method does not have: "
          + have);
    }
    if (!missingBeans.isEmpty()) {
      throw fail("lock name \"" + text + "\" refers to " + String.join(", ", missingBeans)
          + ", but there is no such bean");
    }
    return parsed;
  }

  private static void visit(SpelNode node, java.util.function.Consumer<SpelNode> visitor) {
    visitor.accept(node);
    for (int i = 0; i < node.getChildCount(); i++) {
      visit(node.getChild(i), visitor);
    }
  }

  private IllegalStateException fail(String why) {
    return new IllegalStateException("@Locked on " + description + ": " + why);
  }

  /** {@code com.example.OrderService.pay(Order, LockLease)}: for messages. */
  static String describe(Method method) {
    return method.getDeclaringClass().getName() + "." + method.getName() + "(" + Arrays.stream(method.getParameterTypes())
        .map(Class::getSimpleName).collect(Collectors.joining(", ")) + ")";
  }

  /**
   * The lock name for one call.
   *
   * @throws IllegalArgumentException if the expression fails or gives null or a blank name
   */
  String lockName(Object target, Object[] args) {
    if (nameExpression == null) {
      return fixedName;
    }
    MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
        new LockedCall(method, target, args), method, args, PARAMETER_NAMES);
    context.setBeanResolver(beanResolver);
    Object value;
    try {
      value = nameExpression.getValue(context);
    } catch (EvaluationException e) {
      throw new IllegalArgumentException("lock name \"" + nameExpression.getExpressionString() + "\" of "
          + description + " failed: " + e.getMessage(), e);
    }
    String name = value == null ? null : value.toString();
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("lock name \"" + nameExpression.getExpressionString() + "\" of "
          + description + " gave " + (name == null ? "null" : "a blank name '" + name + "'"));
    }
    return name;
  }

  /** What a skipped call returns (for futures, what the future completes with). */
  Object skipValue() {
    return resultIsOptional ? Optional.empty() : null;
  }

  /** Puts the lease where the method has a {@link LockLease} parameter. */
  void injectLease(Object[] args, LockLease lease) {
    if (leaseParameter >= 0) {
      args[leaseParameter] = lease;
    }
  }

  Method method() {
    return method;
  }

  String description() {
    return description;
  }

  Duration waitTime() {
    return wait;
  }

  /** The fixed lease, or null for the watchdog's. */
  Duration lease() {
    return lease;
  }

  /** The least time to hold, or null. */
  Duration holdAtLeast() {
    return holdAtLeast;
  }

  boolean skipOnTimeout() {
    return skipOnTimeout;
  }

  Locked.OnLost onLost() {
    return onLost;
  }

  /** Whether a loss stops the method: its thread interrupted, or its future cancelled. */
  boolean interruptOnLost() {
    return interruptOnLost;
  }

  Kind kind() {
    return kind;
  }
}
