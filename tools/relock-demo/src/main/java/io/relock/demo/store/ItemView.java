package io.relock.demo.store;

import java.util.List;

/**
 * A consistent snapshot of one item.
 *
 * @param item the item id
 * @param stock the stock now
 * @param initialStock the stock the current sale started with (set by the last restock)
 * @param lastToken the newest fencing token the item has seen; 0 if none
 * @param orders the order records, oldest first, as JSON text
 */
public record ItemView(String item, long stock, long initialStock, long lastToken, List<String> orders) {

  public ItemView {
    orders = List.copyOf(orders);
  }

  /** Units sold in this sale: the number of orders recorded. */
  public long sold() {
    return orders.size();
  }

  /** Units sold beyond the initial stock; 0 when the sale was correct. */
  public long oversold() {
    return Math.max(0, sold() - initialStock);
  }
}
