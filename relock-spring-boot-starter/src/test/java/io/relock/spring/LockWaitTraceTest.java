package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.relock.Relock;
import io.relock.micrometer.RelockObservations;
import io.relock.testkit.Await;
import io.relock.testkit.RedisExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * End to end with OpenTelemetry: a web application (Actuator, micrometer-tracing's OpenTelemetry
 * bridge, every trace sampled) whose endpoint calls an {@code @Locked} method. Two HTTP requests
 * contend for one lock; the exported spans show the second request's {@value
 * RelockObservations#WAIT} as a child of its server span, lasting until the first request's
 * {@value RelockObservations#HOLD} ended, then its own hold, by hand-over, with a newer token.
 *
 * <p>With {@code -Drelock.trace.png=FILE} it also draws the spans as a timeline ({@link
 * LockWaitTimeline}); a relative FILE is taken from the repository's root. The README's picture:
 *
 * <pre>
 * ./mvnw -B -ntp -pl relock-spring-boot-starter -am verify -P '!virtual-threads' -Dtest=LockWaitTraceTest \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Drelock.trace.png=docs/images/lock-wait-trace.png
 * </pre>
 */
@SpringBootTest(classes = LockWaitTraceTest.OrdersApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"management.tracing.sampling.probability=1.0", "spring.mvc.servlet.load-on-startup=1"})
@AutoConfigureObservability(metrics = false) // @SpringBootTest turns tracing off unless asked
class LockWaitTraceTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  @DynamicPropertySource
  static void redis(DynamicPropertyRegistry registry) {
    registry.add("spring.data.redis.url", () -> redis.server().uri());
  }

  private static final AttributeKey<String> LOCK_NAME = AttributeKey.stringKey(RelockObservations.LOCK_NAME);
  private static final AttributeKey<String> TOKEN = AttributeKey.stringKey(RelockObservations.FENCING_TOKEN);
  private static final AttributeKey<String> HANDED_OVER = AttributeKey.stringKey(RelockObservations.HANDED_OVER);
  private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey(RelockObservations.OUTCOME);
  private static final AttributeKey<String> KIND = AttributeKey.stringKey(RelockObservations.KIND);
  private static final AttributeKey<String> HTTP_URI = AttributeKey.stringKey("uri");
  private static final String ROUTE = "/orders/{id}/pay";
  private static final String LOCK = "order:42";

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import({Payments.class, PaymentsController.class})
  static class OrdersApp {
    /** Boot's OpenTelemetry tracing exports to every SpanExporter bean. */
    @Bean
    SpanExporter spans() {
      return InMemorySpanExporter.create();
    }
  }

  /** Pays an order under its lock; a call stays inside until the test opens the door. */
  public static class Payments {
    private final AtomicInteger entered = new AtomicInteger();
    private final CountDownLatch mayLeave = new CountDownLatch(1);

    // Read through methods: the bean others get is a proxy, whose own fields are empty.
    public int entered() {
      return entered.get();
    }

    public void letLeave() {
      mayLeave.countDown();
    }

    @Locked(value = "'order:' + #id", waitTime = "30s")
    public long pay(String id) {
      entered.incrementAndGet();
      Apps.await(mayLeave, "the test lets the payment finish");
      return CurrentLease.get().fencingToken();
    }
  }

  @RestController
  public static class PaymentsController {
    private final Payments payments;

    PaymentsController(Payments payments) {
      this.payments = payments;
    }

    @GetMapping("/orders/{id}/pay")
    public long pay(@PathVariable String id) {
      return payments.pay(id);
    }
  }

  @LocalServerPort int port;
  @Autowired Payments payments;
  @Autowired SpanExporter exporter;
  @Autowired SdkTracerProvider tracerProvider;
  @Autowired Relock relock;

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void theSecondRequest_waitsInItsOwnSpan_untilTheFirstRequestsHoldEnds_thenHoldsByHandOver() throws Exception {
    // A first lock (the connection, the scripts) is slower: so that the spans show the contention
    // rather than a cold start. Its spans are in a trace of their own, on another lock.
    relock.lock("warm-up").acquire(Await.GENEROUS).close();

    CompletableFuture<HttpResponse<String>> first = pay("42");
    Await.until("the first request is inside the locked method", () -> payments.entered() == 1);
    CompletableFuture<HttpResponse<String>> second = pay("42");
    // Its application holds the lock: the second request waits in the client, following that hold.
    Await.until("the second request waits for the lock", () -> relock.stats().acquiring() == 1);
    assertThat(payments.entered()).as("the second request is not inside").isEqualTo(1);
    payments.letLeave();
    long firstToken = token(first);
    long secondToken = token(second);

    InMemorySpanExporter memory = (InMemorySpanExporter) exporter;
    try {
      Await.until("both requests' server spans, waits and holds are exported", () -> {
        tracerProvider.forceFlush().join(10, TimeUnit.SECONDS);
        List<SpanData> spans = ours(memory.getFinishedSpanItems());
        return count(spans, "http get " + ROUTE) == 2 && count(spans, RelockObservations.WAIT) == 2
            && count(spans, RelockObservations.HOLD) == 2;
      });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; exported: "
          + memory.getFinishedSpanItems().stream().map(SpanData::getName).toList(), e);
    }
    List<SpanData> spans = ours(memory.getFinishedSpanItems());

    // Each request's wait and hold carry the token its response carries.
    SpanData firstWait = withToken(spans, RelockObservations.WAIT, firstToken);
    SpanData firstHold = withToken(spans, RelockObservations.HOLD, firstToken);
    SpanData secondWait = withToken(spans, RelockObservations.WAIT, secondToken);
    SpanData secondHold = withToken(spans, RelockObservations.HOLD, secondToken);
    SpanData firstServer = server(spans, firstWait.getTraceId());
    SpanData secondServer = server(spans, secondWait.getTraceId());

    LockWaitTimeline.writeIfAsked(List.of(firstServer, firstWait, firstHold, secondServer, secondWait, secondHold));

    // Two requests, two traces; each request's wait and hold are children of its server span.
    assertThat(secondServer.getTraceId()).isNotEqualTo(firstServer.getTraceId());
    assertThat(List.of(firstWait, firstHold)).allSatisfy(s -> assertChildOf(s, firstServer));
    assertThat(List.of(secondWait, secondHold)).allSatisfy(s -> assertChildOf(s, secondServer));

    // The first request found the lock free.
    assertThat(firstWait.getAttributes().get(HANDED_OVER)).isEqualTo("false");

    // The second request's wait: on the same lock, ended by the hand-over of a newer token, and
    // not before the first request's hold ended. (The two spans are in different traces, whose
    // clocks OpenTelemetry anchors to the wall clock separately: allow its resolution.)
    assertThat(secondWait.getAttributes().get(LOCK_NAME)).isEqualTo(LOCK);
    assertThat(firstHold.getAttributes().get(LOCK_NAME)).isEqualTo(LOCK);
    assertThat(secondWait.getAttributes().get(KIND)).isEqualTo("lock");
    assertThat(secondWait.getAttributes().get(OUTCOME)).isEqualTo("acquired");
    assertThat(secondWait.getAttributes().get(HANDED_OVER)).as("the lock came by hand-over").isEqualTo("true");
    assertThat(secondToken).isGreaterThan(firstToken);
    assertThat(secondWait.getStartEpochNanos()).as("the second wait started while the first hold lasted")
        .isBetween(firstHold.getStartEpochNanos(), firstHold.getEndEpochNanos());
    assertThat(secondWait.getEndEpochNanos())
        .as("the second wait ended once the first hold had ended (not before: the holds would overlap)")
        .isGreaterThanOrEqualTo(firstHold.getEndEpochNanos() - CLOCK_GRANULARITY_NANOS);

    // Then the second request held the lock, from after its wait.
    assertThat(secondHold.getStartEpochNanos()).isGreaterThanOrEqualTo(secondWait.getEndEpochNanos());
    assertThat(secondHold.getAttributes().get(HANDED_OVER)).isEqualTo("true");
    assertThat(secondHold.getAttributes().get(OUTCOME)).isEqualTo("released");
  }

  /**
   * How far apart two traces may put one instant: each trace's clock is the wall clock read once,
   * when its first span starts, plus {@link System#nanoTime()} since.
   */
  private static final long CLOCK_GRANULARITY_NANOS = TimeUnit.MICROSECONDS.toNanos(1);

  private CompletableFuture<HttpResponse<String>> pay(String order) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/orders/" + order + "/pay"))
        .GET().build();
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
  }

  private static long token(CompletableFuture<HttpResponse<String>> response) throws Exception {
    HttpResponse<String> r = response.get(Await.GENEROUS.toSeconds(), TimeUnit.SECONDS);
    assertThat(r.statusCode()).as("status of %s: %s", r.uri(), r.body()).isEqualTo(200);
    return Long.parseLong(r.body().trim());
  }

  /** The requests' server spans and the lock's waits and holds. */
  private static List<SpanData> ours(List<SpanData> spans) {
    return spans.stream().filter(s -> s.getKind() == SpanKind.SERVER ? ROUTE.equals(s.getAttributes().get(HTTP_URI))
        : LOCK.equals(s.getAttributes().get(LOCK_NAME))).toList();
  }

  private static long count(List<SpanData> spans, String name) {
    return spans.stream().filter(s -> s.getName().equals(name)).count();
  }

  private static SpanData withToken(List<SpanData> spans, String name, long token) {
    return only(spans, name + " with token " + token,
        s -> s.getName().equals(name) && Long.toString(token).equals(s.getAttributes().get(TOKEN)));
  }

  private static SpanData server(List<SpanData> spans, String traceId) {
    return only(spans, "the server span of trace " + traceId,
        s -> s.getKind() == SpanKind.SERVER && s.getTraceId().equals(traceId));
  }

  private static SpanData only(List<SpanData> spans, String what, Predicate<SpanData> which) {
    List<SpanData> found = spans.stream().filter(which).toList();
    assertThat(found).as("%s, among %s", what, spans).hasSize(1);
    return found.get(0);
  }

  private static void assertChildOf(SpanData child, SpanData parent) {
    assertThat(child.getTraceId()).as("trace of %s", child.getName()).isEqualTo(parent.getTraceId());
    assertThat(child.getParentSpanId()).as("parent of %s", child.getName()).isEqualTo(parent.getSpanId());
    assertThat(child.getStartEpochNanos()).as("%s starts within its request", child.getName())
        .isGreaterThanOrEqualTo(parent.getStartEpochNanos());
    assertThat(child.getEndEpochNanos()).as("%s ends within its request", child.getName())
        .isLessThanOrEqualTo(parent.getEndEpochNanos());
  }
}
