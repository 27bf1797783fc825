package io.relock.demo.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.relock.demo.production.FlashSale;
import io.relock.demo.production.ProductionSale;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The production strategy's sales (see {@link ProductionSale}); buyers use {@code POST
 * /items/{id}/purchase?strategy=production}.
 *
 * <ul>
 *   <li>{@code PUT /sales/{id}} with {@code {"stock": n}}: start a sale of n units: a new sale id,
 *       announced to every service process, which clears its sold-out flag
 *   <li>{@code GET /sales/{id}}: stock, initial stock, units taken (each one's order queued), the
 *       sale id, its partitions, and whether this process answers "sold out" from memory
 * </ul>
 */
@RestController
@RequestMapping(path = "/sales", produces = MediaType.APPLICATION_JSON_VALUE)
public class SaleController {

  private final ProductionSale production;
  private final ObjectMapper json;

  public SaleController(ProductionSale production, ObjectMapper json) {
    this.production = production;
    this.json = json;
  }

  @PutMapping("/{id}")
  public Map<String, Object> put(@PathVariable("id") String id, @RequestBody(required = false) String body) {
    ItemController.requireValidId(id);
    return saleBody(production.start(id, ItemController.parseStock(json, body)));
  }

  @GetMapping("/{id}")
  public Map<String, Object> get(@PathVariable("id") String id) {
    ItemController.requireValidId(id);
    return saleBody(production.view(id).orElseThrow(() -> ApiException.unknownItem(id)));
  }

  private Map<String, Object> saleBody(FlashSale.SaleView sale) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("item", sale.item());
    body.put("sale", sale.sale());
    body.put("stock", sale.stock());
    body.put("initialStock", sale.initialStock());
    body.put("taken", sale.taken());
    body.put("partitions", sale.partitions());
    body.put("soldOutHere", production.soldOutHere(sale.item()));
    return body;
  }
}
