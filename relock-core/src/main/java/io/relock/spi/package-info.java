/**
 * The driver SPI: the few calls relock-core makes on a Redis client. Implement {@link
 * io.relock.spi.RedisDriver} and {@link io.relock.spi.RedisDriverFactory} to add a client; see
 * relock-lettuce for an adapter of under two hundred lines.
 */
package io.relock.spi;
