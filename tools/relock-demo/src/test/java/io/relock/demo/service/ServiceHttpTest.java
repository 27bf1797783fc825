package io.relock.demo.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.Relock;
import io.relock.demo.Eventually;
import io.relock.demo.guard.RelockGuard;
import io.relock.demo.store.RedisInventory;
import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/** The service over HTTP, in this JVM, against a real Redis that tests stop and restart. */
class ServiceHttpTest {

  @RegisterExtension static final RedisExtension redis = RedisExtension.withPersistence();

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final ProcessingStep NOTHING = (item, stock) -> {};

  private static ConfigurableApplicationContext app;
  private static URI base;

  /** Lets a test decide what happens between a purchase's read and write. */
  @Configuration(proxyBeanMethods = false)
  static class SteerableStep {
    static volatile ProcessingStep current = NOTHING;

    @Bean
    @Primary
    ProcessingStep steerableStep() {
      return (item, stock) -> current.afterRead(item, stock);
    }
  }

  @BeforeAll
  static void startService() {
    app =
        ServiceApplication.application(SteerableStep.class)
            .run(
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--demo.redis-uri=" + redis.server().uri(),
                "--demo.instance=http-test",
                "--demo.redis-timeout=2s");
    int port = ((WebServerApplicationContext) app).getWebServer().getPort();
    base = URI.create("http://127.0.0.1:" + port);
  }

  @AfterAll
  static void stopService() {
    if (app != null) {
      app.close();
    }
  }

  @AfterEach
  void resetStep() {
    SteerableStep.current = NOTHING;
  }

  @Test
  void put_thenPurchase_thenGet_reportsStockSoldAndOrders() throws Exception {
    Reply put = put("sale-1", "{\"stock\": 2}");
    assertThat(put.status).isEqualTo(200);
    assertThat(put.json.get("stock").asLong()).isEqualTo(2);
    assertThat(put.json.get("orders")).isEmpty();

    Reply bought = purchase("sale-1", "relock");
    assertThat(bought.status).isEqualTo(200);
    assertThat(bought.json.get("order").asLong()).isEqualTo(1);
    assertThat(bought.json.get("stockLeft").asLong()).isEqualTo(1);
    long token = bought.json.get("fencingToken").asLong();
    assertThat(token).isPositive();

    Reply item = get("/items/sale-1");
    assertThat(item.status).isEqualTo(200);
    assertThat(item.json.get("stock").asLong()).isEqualTo(1);
    assertThat(item.json.get("initialStock").asLong()).isEqualTo(2);
    assertThat(item.json.get("sold").asLong()).isEqualTo(1);
    assertThat(item.json.get("oversold").asLong()).isZero();
    assertThat(item.json.get("orders").get(0).get("token").asLong()).isEqualTo(token);
    assertThat(item.json.get("orders").get(0).get("instance").asText()).isEqualTo("http-test");
  }

  @Test
  void timings_countEachRelockPurchase_andTheLockWaitInsideIt() throws Exception {
    put("sale-timed", "{\"stock\": 5}");
    JsonNode before = get("/timings").json;
    assertThat(purchase("sale-timed", "relock").status).isEqualTo(200);
    assertThat(purchase("sale-timed", "none").status).isEqualTo(200);
    JsonNode after = get("/timings").json;

    assertThat(after.get("lockWaits").asLong() - before.get("lockWaits").asLong()).as("the relock purchase's wait")
        .isEqualTo(1);
    long waited = after.get("lockWaitNanos").asLong() - before.get("lockWaitNanos").asLong();
    JsonNode relock = after.get("strategies").get("relock");
    long relockPurchases = relock.get("purchases").asLong()
        - before.path("strategies").path("relock").path("purchases").asLong();
    long purchaseNanos = relock.get("purchaseNanos").asLong()
        - before.path("strategies").path("relock").path("purchaseNanos").asLong();
    assertThat(relockPurchases).isEqualTo(1);
    assertThat(waited).isPositive().isLessThan(purchaseNanos);
    assertThat(after.get("strategies").get("none").get("purchases").asLong()).isPositive();
  }

  @Test
  void timings_countThePurchasesInFlight_untilTheyAreAnswered() throws Exception {
    put("sale-in-flight", "{\"stock\": 5}");
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    SteerableStep.current = (item, stock) -> {
      try {
        release.await(30, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
    java.util.concurrent.CompletableFuture<Reply> bought =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> purchase("sale-in-flight", "none"));
    try {
      Eventually.await("the stalled purchase counted in flight", Duration.ofSeconds(30),
          () -> get("/timings").json.get("inFlight").asLong() == 1);
    } finally {
      release.countDown();
    }
    assertThat(bought.get(30, java.util.concurrent.TimeUnit.SECONDS).status).isEqualTo(200);
    Eventually.await("no purchase in flight", Duration.ofSeconds(30),
        () -> get("/timings").json.get("inFlight").asLong() == 0);
  }

  @Test
  void purchase_withoutStockLeft_answers409SoldOut() throws Exception {
    put("sale-empty", "{\"stock\": 0}");

    Reply reply = purchase("sale-empty", "relock");

    assertJsonError(reply, 409, "sold_out");
  }

  @Test
  void production_putSale_thenPurchases_queueOrdersUntilSoldOut_thenAnswerFromMemory() throws Exception {
    Reply started = send(HttpRequest.newBuilder(base.resolve("/sales/prod-1"))
        .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString("{\"stock\": 1}")));
    assertThat(started.status).as(started.body).isEqualTo(200);
    long sale = started.json.get("sale").asLong();
    assertThat(started.json.get("stock").asLong()).isEqualTo(1);
    assertThat(started.json.get("soldOutHere").asBoolean()).isFalse();

    Reply bought = purchase("prod-1", "production");
    assertThat(bought.status).as(bought.body).isEqualTo(200);
    assertThat(bought.json.get("order").asText()).isEqualTo("prod-1-" + sale + "-1");
    assertThat(bought.json.get("stockLeft").asLong()).isZero();
    assertThat(bought.json.get("queued").get("partition").asInt()).isZero();

    Reply fromRedis = purchase("prod-1", "production");
    assertJsonError(fromRedis, 409, "sold_out");
    assertThat(fromRedis.json.get("answeredFrom").asText()).isEqualTo("redis");
    Reply fromMemory = purchase("prod-1", "production");
    assertJsonError(fromMemory, 409, "sold_out");
    assertThat(fromMemory.json.get("answeredFrom").asText()).isEqualTo("memory");

    Reply view = get("/sales/prod-1");
    assertThat(view.json.get("taken").asLong()).isEqualTo(1);
    assertThat(view.json.get("soldOutHere").asBoolean()).isTrue();
  }

  @Test
  void production_withoutASale_answers404_andItsBadInputAnswers400() throws Exception {
    assertJsonError(purchase("prod-none", "production"), 404, "unknown_item");
    assertJsonError(get("/sales/prod-none"), 404, "unknown_item");
    assertJsonError(send(HttpRequest.newBuilder(base.resolve("/sales/prod-bad"))
        .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString("{\"stock\": -3}"))),
        400, "bad_stock");
    Reply unknown = purchase("prod-none", "optimistic");
    assertJsonError(unknown, 400, "unknown_strategy");
    assertThat(unknown.json.get("error").asText()).contains("production");
  }

  @Test
  void put_nonNumericStock_answers400WithJsonError() throws Exception {
    assertJsonError(put("bad-1", "{\"stock\": \"abc\"}"), 400, "bad_stock");
    assertJsonError(put("bad-1", "{\"stock\": 1.5}"), 400, "bad_stock");
    assertJsonError(put("bad-1", "{\"stock\": true}"), 400, "bad_stock");
    assertThat(get("/items/bad-1").status).as("nothing was created").isEqualTo(404);
  }

  @Test
  void put_negativeOrHugeStock_answers400WithJsonError() throws Exception {
    Reply negative = put("bad-2", "{\"stock\": -1}");
    assertJsonError(negative, 400, "bad_stock");
    assertThat(negative.json.get("error").asText()).contains("-1");
    assertJsonError(put("bad-2", "{\"stock\": 99999999999999999999}"), 400, "bad_stock");
  }

  @Test
  void put_malformedOrMissingBody_answers400WithJsonError() throws Exception {
    assertJsonError(put("bad-3", "{\"stock\": "), 400, "malformed_body");
    assertJsonError(put("bad-3", "[1, 2]"), 400, "malformed_body");
    assertJsonError(put("bad-3", ""), 400, "malformed_body");
    assertJsonError(put("bad-3", "{\"stok\": 5}"), 400, "bad_stock");
  }

  @Test
  void unknownItem_answers404WithJsonError() throws Exception {
    assertJsonError(get("/items/no-such-item"), 404, "unknown_item");
    assertJsonError(purchase("no-such-item", "relock"), 404, "unknown_item");
    assertJsonError(purchase("no-such-item", "none"), 404, "unknown_item");
  }

  @Test
  void badItemIdOrStrategyOrPath_answer4xxWithJsonError() throws Exception {
    assertJsonError(get("/items/bad!id"), 400, "bad_item_id");
    put("sale-2", "{\"stock\": 1}");
    assertJsonError(purchase("sale-2", "optimistic"), 400, "unknown_strategy");
    assertJsonError(get("/nothing/here"), 404, "not_found");
    assertThat(get("/items/sale-2").json.get("sold").asLong()).isZero();
  }

  @Test
  void purchase_whoseLeaseIsLostBeforeItsWrite_answers409StaleTokenAndWritesNothing() throws Exception {
    put("sale-fenced", "{\"stock\": 3}");
    try (Relock rival = Relock.connect(redis.server().uri());
        RedisInventory rivalStore = RedisInventory.connect(redis.server().uri(), Duration.ofSeconds(5))) {
      DistributedLock lock = rival.lock(RelockGuard.lockName("sale-fenced"));
      SteerableStep.current =
          (item, stock) -> {
            // Between this purchase's read and write, its lock is taken over and the new holder
            // reads with its newer token; the lease of this purchase is lost.
            lock.forceUnlock();
            try (LockLease newer = lock.acquire(Duration.ofSeconds(10))) {
              rivalStore.readStock(item, OptionalLong.of(newer.fencingToken()));
            }
          };

      Reply reply = purchase("sale-fenced", "relock");

      assertJsonError(reply, 409, "stale_token");
      assertThat(reply.json.get("error").asText()).contains("lease lost");
      assertThat(reply.json.get("lockRelease").asText()).as("the lost lease is reported").isNotEmpty();
    }
    Reply item = get("/items/sale-fenced");
    assertThat(item.json.get("stock").asLong()).isEqualTo(3);
    assertThat(item.json.get("sold").asLong()).isZero();
  }

  @Test
  void redisUnreachable_answers503WithJsonError_andRecordsNoSale() throws Exception {
    put("sale-down", "{\"stock\": 3}");
    RedisServer server = redis.server();
    server.stop();
    try {
      for (String strategy : new String[] {"none", "seed-setnx", "relock"}) {
        Reply reply = purchase("sale-down", strategy);
        assertJsonError(reply, 503, "redis_unavailable");
        assertThat(reply.json.get("error").asText()).as(strategy).startsWith("Redis unavailable");
        assertThat(reply.json.get("saleRecorded").asText()).as(strategy).isEqualTo("no");
      }
      assertJsonError(get("/items/sale-down"), 503, "redis_unavailable");
    } finally {
      server.restart();
    }
    assertUntouchedOnceRedisIsBack("sale-down", 3);
  }

  @Test
  void redisLostBetweenReadAndWrite_answers503_andRecordsNoPartialSale() throws Exception {
    put("sale-cut", "{\"stock\": 3}");
    RedisServer server = redis.server();
    SteerableStep.current = (item, stock) -> server.stop();
    try {
      Reply reply = purchase("sale-cut", "none");
      assertJsonError(reply, 503, "redis_unavailable");
    } finally {
      SteerableStep.current = NOTHING;
      server.restart();
    }
    assertUntouchedOnceRedisIsBack("sale-cut", 3);
  }

  private static void assertUntouchedOnceRedisIsBack(String item, long stock) {
    Eventually.await(
        "the service reaches Redis again", Duration.ofSeconds(60), () -> get("/items/" + item).status == 200);
    Reply after = get("/items/" + item);
    assertThat(after.json.get("stock").asLong()).isEqualTo(stock);
    assertThat(after.json.get("sold").asLong()).isZero();
    assertThat(after.json.get("orders")).isEmpty();
  }

  private static void assertJsonError(Reply reply, int status, String code) {
    assertThat(reply.status).as(reply.body).isEqualTo(status);
    assertThat(reply.contentType).as(reply.body).startsWith("application/json");
    assertThat(reply.json.path("code").asText()).as(reply.body).isEqualTo(code);
    assertThat(reply.json.path("error").asText()).as(reply.body).isNotBlank();
  }

  private record Reply(int status, String contentType, String body, JsonNode json) {}

  private static Reply get(String path) {
    return send(HttpRequest.newBuilder(base.resolve(path)).GET());
  }

  private static Reply put(String item, String body) {
    return send(
        HttpRequest.newBuilder(base.resolve("/items/" + item))
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body)));
  }

  private static Reply purchase(String item, String strategy) {
    return send(
        HttpRequest.newBuilder(base.resolve("/items/" + item + "/purchase?strategy=" + strategy))
            .POST(HttpRequest.BodyPublishers.noBody()));
  }

  private static Reply send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          HTTP.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
      String body = response.body();
      JsonNode json = body.isEmpty() ? JSON.createObjectNode() : JSON.readTree(body);
      return new Reply(
          response.statusCode(), response.headers().firstValue("Content-Type").orElse(""), body, json);
    } catch (IOException e) {
      throw new AssertionError("request failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
