package io.relock.demo.service;

import java.util.LinkedHashMap;
import java.util.Map;

/** The JSON body of every error answer: {@code {"error": "...", "code": "...", ...details}}. */
final class ErrorBody {

  private ErrorBody() {}

  static Map<String, Object> of(String code, String message, Map<String, Object> details) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", message);
    body.put("code", code);
    body.putAll(details);
    return body;
  }

  static Map<String, Object> of(String code, String message) {
    return of(code, message, Map.of());
  }
}
