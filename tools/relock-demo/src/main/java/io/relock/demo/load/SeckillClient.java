package io.relock.demo.load;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;

/** The seckill service's HTTP API as the load driver uses it; one instance for all service processes. */
public final class SeckillClient {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private final HttpClient http;

  public SeckillClient() {
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  /** One answer: its status and its error code (null on success or without a JSON code). */
  public record Answer(int status, String code, String body) {}

  /** {@code POST /items/{item}/purchase?strategy=...}. */
  public Answer purchase(URI service, String item, String strategy) throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(service.resolve("/items/" + item + "/purchase?strategy=" + strategy))
            .timeout(REQUEST_TIMEOUT)
            .POST(HttpRequest.BodyPublishers.noBody())
            .build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    String code = response.statusCode() == 200 ? null : errorCode(response.body());
    return new Answer(response.statusCode(), code, response.body());
  }

  /** {@code PUT /items/{item}} with {@code {"stock": n}}: starts a new sale. */
  public void restock(URI service, String item, long stock) {
    HttpRequest request =
        HttpRequest.newBuilder(service.resolve("/items/" + item))
            .timeout(REQUEST_TIMEOUT)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString("{\"stock\": " + stock + "}"))
            .build();
    expectOk(send(request), "restock " + item);
  }

  /**
   * A production sale as {@code GET /sales/{item}} reports it.
   *
   * @param sale the sale's id
   * @param stock units left
   * @param initialStock units it started with
   * @param taken units taken, each one's order queued
   * @param soldOutHere whether the answering process says "sold out" from memory now
   */
  public record ProductionSale(long sale, long stock, long initialStock, long taken, boolean soldOutHere) {}

  /** {@code PUT /sales/{item}} with {@code {"stock": n}}: starts a production sale; returns it. */
  public ProductionSale startSale(URI service, String item, long stock) {
    HttpRequest request =
        HttpRequest.newBuilder(service.resolve("/sales/" + item))
            .timeout(REQUEST_TIMEOUT)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString("{\"stock\": " + stock + "}"))
            .build();
    return productionSale(expectOk(send(request), "start the sale of " + item));
  }

  /** {@code GET /sales/{item}}. */
  public ProductionSale sale(URI service, String item) {
    HttpRequest request = HttpRequest.newBuilder(service.resolve("/sales/" + item)).timeout(REQUEST_TIMEOUT).build();
    return productionSale(expectOk(send(request), "view the sale of " + item));
  }

  private static ProductionSale productionSale(JsonNode body) {
    return new ProductionSale(body.path("sale").asLong(), body.path("stock").asLong(),
        body.path("initialStock").asLong(), body.path("taken").asLong(), body.path("soldOutHere").asBoolean());
  }

  /**
   * A service's observed totals since it started ({@code GET /timings}): lock waits and their
   * time, and the purchases of {@code strategy} and their time.
   */
  public record Timings(long lockWaits, long lockWaitNanos, long purchases, long purchaseNanos) {
    /** The totals of both. */
    public Timings plus(Timings o) {
      return new Timings(lockWaits + o.lockWaits, lockWaitNanos + o.lockWaitNanos, purchases + o.purchases,
          purchaseNanos + o.purchaseNanos);
    }

    /** What happened between {@code before} and these totals. */
    public Timings since(Timings before) {
      return new Timings(lockWaits - before.lockWaits, lockWaitNanos - before.lockWaitNanos,
          purchases - before.purchases, purchaseNanos - before.purchaseNanos);
    }
  }

  /** {@code GET /timings}'s purchases started and not yet answered. */
  public long purchasesInFlight(URI service) {
    HttpRequest request = HttpRequest.newBuilder(service.resolve("/timings")).timeout(REQUEST_TIMEOUT).build();
    return expectOk(send(request), "timings").path("inFlight").asLong();
  }

  /** {@code GET /timings}, for the purchases of {@code strategy}. */
  public Timings timings(URI service, String strategy) {
    HttpRequest request = HttpRequest.newBuilder(service.resolve("/timings")).timeout(REQUEST_TIMEOUT).build();
    JsonNode body = expectOk(send(request), "timings");
    JsonNode of = body.path("strategies").path(strategy);
    return new Timings(body.path("lockWaits").asLong(), body.path("lockWaitNanos").asLong(),
        of.path("purchases").asLong(), of.path("purchaseNanos").asLong());
  }

  /** {@code GET /items/{item}}. */
  public SaleState state(URI service, String item) {
    HttpRequest request = HttpRequest.newBuilder(service.resolve("/items/" + item)).timeout(REQUEST_TIMEOUT).build();
    JsonNode body = expectOk(send(request), "view " + item);
    return new SaleState(
        body.path("stock").asLong(),
        body.path("initialStock").asLong(),
        body.path("sold").asLong(),
        body.path("oversold").asLong());
  }

  private HttpResponse<String> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static JsonNode expectOk(HttpResponse<String> response, String what) {
    if (response.statusCode() != 200) {
      throw new IllegalStateException(what + " answered " + response.statusCode() + ": " + response.body());
    }
    try {
      return JSON.readTree(response.body());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(what + " answered no JSON: " + response.body(), e);
    }
  }

  private static String errorCode(String body) {
    try {
      JsonNode code = JSON.readTree(Objects.requireNonNullElse(body, "")).get("code");
      return code == null ? null : code.asText();
    } catch (JsonProcessingException e) {
      return null;
    }
  }
}
