package io.relock.demo.load;

/**
 * An item as {@code GET /items/{id}} reports it.
 *
 * @param stock the stock now
 * @param initialStock the stock the sale started with
 * @param sold orders recorded
 * @param oversold orders beyond the initial stock
 */
public record SaleState(long stock, long initialStock, long sold, long oversold) {

  /**
   * Sales whose decrement of the stock was overwritten by another buyer: every recorded sale should
   * have lowered the stock by one, so this is {@code sold + stock - initialStock}. Non-zero exactly
   * when two buyers were inside the read-modify-write at once, even if the stock was not exceeded.
   */
  public long lostUpdates() {
    return Math.max(0, sold + stock - initialStock);
  }
}
