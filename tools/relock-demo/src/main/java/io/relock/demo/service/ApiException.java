package io.relock.demo.service;

import java.util.Map;
import org.springframework.http.HttpStatus;

/** A request the service answers with a 4xx and a JSON error body. */
public class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final HttpStatus status;
  private final String code;
  private final transient Map<String, Object> details;

  /**
   * @param status the HTTP status
   * @param code a stable machine-readable code, e.g. {@code bad_stock}
   * @param message what is wrong, for a person
   * @param details extra fields of the JSON body
   */
  public ApiException(HttpStatus status, String code, String message, Map<String, Object> details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = Map.copyOf(details);
  }

  static ApiException unknownItem(String item) {
    return new ApiException(HttpStatus.NOT_FOUND, "unknown_item", "unknown item: " + item, Map.of("item", item));
  }

  static ApiException badRequest(String code, String message) {
    return new ApiException(HttpStatus.BAD_REQUEST, code, message, Map.of());
  }

  public HttpStatus status() {
    return status;
  }

  public String code() {
    return code;
  }

  public Map<String, Object> details() {
    return details;
  }
}
