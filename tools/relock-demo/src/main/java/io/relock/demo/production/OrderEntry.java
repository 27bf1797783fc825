package io.relock.demo.production;

import java.util.Map;

/**
 * One queued order, as the take script put it on a partition's stream.
 *
 * @param entryId the stream entry id
 * @param orderId {@code <item>-<sale>-<unit>}: the key the database stores the order by, so a
 *     redelivered entry can never become a second order
 * @param item the item
 * @param sale the sale's id
 * @param unit the unit's number in the sale
 * @param takenBy the service instance that took the unit
 * @param acceptedAtMillis when Redis took the unit (its clock, epoch milliseconds)
 */
public record OrderEntry(String entryId, String orderId, String item, long sale, long unit, String takenBy,
    long acceptedAtMillis) {

  /**
   * The entry's fields as the take script wrote them.
   *
   * @throws IllegalArgumentException naming the entry if a field is missing or malformed
   */
  public static OrderEntry of(String entryId, Map<String, String> fields) {
    try {
      return new OrderEntry(entryId, required(fields, "order"), required(fields, "item"),
          Long.parseLong(required(fields, "sale")), Long.parseLong(required(fields, "unit")),
          required(fields, "instance"), Long.parseLong(required(fields, "at")));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("malformed order entry " + entryId + ": " + fields, e);
    }
  }

  private static String required(Map<String, String> fields, String name) {
    String value = fields.get(name);
    if (value == null) {
      throw new IllegalArgumentException("order entry without '" + name + "': " + fields);
    }
    return value;
  }
}
