package io.relock.demo.load;

/**
 * An item as {@code GET /items/{id}} reports it.
 *
 * @param stock the stock now
 * @param initialStock the stock the sale started with
 * @param sold orders recorded
 * @param oversold orders beyond the initial stock
 */
public record SaleState(long stock, long initialStock, long sold, long oversold) {}
