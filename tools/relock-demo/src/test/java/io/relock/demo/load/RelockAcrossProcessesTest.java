package io.relock.demo.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The demo's main claim, end to end: three service processes (separate JVMs) sell one item under
 * relock while demand is far above the stock, and exactly the stock is sold.
 */
class RelockAcrossProcessesTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private static final int STOCK = 25;
  private static final int REQUESTS = 400;
  private static final int CONCURRENCY = 32;

  @Test
  void relock_threeProcesses_demandFarAboveStock_sellsExactlyTheStock_leavesNoLockKey(RedisServer server)
      throws Exception {
    try (ServiceFleet fleet = ServiceFleet.start(3, server.uri(), List.of("--demo.processing-time=5ms"));
        DemoKeys keys = new DemoKeys(server.uri())) {
      SeckillClient client = new SeckillClient();
      URI first = fleet.endpoints().get(0);
      client.restock(first, "fleet-1", STOCK);

      LoadRun run = new LoadDriver(client, fleet.endpoints(), null).run("relock", "fleet-1", REQUESTS, CONCURRENCY);

      SaleState sale = client.state(first, "fleet-1");
      assertThat(sale.sold()).isEqualTo(STOCK);
      assertThat(sale.oversold()).isZero();
      assertThat(sale.stock()).isZero();
      assertThat(run.count(Outcome.SOLD)).isEqualTo(STOCK);
      assertThat(run.count(Outcome.SOLD_OUT)).isEqualTo(REQUESTS - STOCK);
      assertThat(run.errors()).isZero();
      assertThat(keys.leftoverLockKeys("relock", "fleet-1")).isEmpty();

      List<JsonNode> orders = orders(first, "fleet-1");
      Set<String> instances = new HashSet<>();
      List<Long> tokens = new ArrayList<>();
      for (JsonNode order : orders) {
        instances.add(order.get("instance").asText());
        tokens.add(order.get("token").asLong());
      }
      assertThat(instances).as("several processes sold units").hasSizeGreaterThanOrEqualTo(2);
      assertThat(tokens).as("each sale was fenced by a newer token").isSorted().doesNotHaveDuplicates();
    }
  }

  private static List<JsonNode> orders(URI service, String item) throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(HttpRequest.newBuilder(service.resolve("/items/" + item)).build(), HttpResponse.BodyHandlers.ofString());
    List<JsonNode> orders = new ArrayList<>();
    new ObjectMapper().readTree(response.body()).get("orders").forEach(orders::add);
    return orders;
  }
}
