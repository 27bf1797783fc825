package io.relock.demo.service;

import io.relock.demo.guard.LockBusyException;
import io.relock.demo.store.RedisUnavailableException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/** Turns every failure into a status and a JSON body with {@code error} and {@code code}. */
@RestControllerAdvice
public class ApiErrorHandler {

  private static final Logger log = LoggerFactory.getLogger(ApiErrorHandler.class);

  @ExceptionHandler(ApiException.class)
  ResponseEntity<Map<String, Object>> api(ApiException e) {
    return answer(e.status(), ErrorBody.of(e.code(), e.getMessage(), e.details()));
  }

  @ExceptionHandler(UnknownStrategyException.class)
  ResponseEntity<Map<String, Object>> unknownStrategy(UnknownStrategyException e) {
    return answer(HttpStatus.BAD_REQUEST, ErrorBody.of("unknown_strategy", e.getMessage()));
  }

  /** The lock stayed taken for the whole wait: the article's "too many people, try again". */
  @ExceptionHandler(LockBusyException.class)
  ResponseEntity<Map<String, Object>> lockBusy(LockBusyException e) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("strategy", e.strategy());
    details.put("waitMs", e.waitTime().toMillis());
    return answer(HttpStatus.TOO_MANY_REQUESTS, ErrorBody.of("lock_busy", e.getMessage(), details));
  }

  @ExceptionHandler(RedisUnavailableException.class)
  ResponseEntity<Map<String, Object>> redisUnavailable(RedisUnavailableException e) {
    String recorded =
        e.writeOutcomeUnknown()
            ? "unknown: the write was sent but not answered; if Redis ran it, stock and order were recorded together"
            : "no";
    log.warn("answering 503: {}", e.getMessage());
    return answer(
        HttpStatus.SERVICE_UNAVAILABLE,
        ErrorBody.of("redis_unavailable", "Redis unavailable: " + e.getMessage(), Map.of("saleRecorded", recorded)));
  }

  @ExceptionHandler(HttpMessageNotReadableException.class)
  ResponseEntity<Map<String, Object>> unreadable(HttpMessageNotReadableException e) {
    return answer(HttpStatus.BAD_REQUEST, ErrorBody.of("malformed_body", "request body unreadable: " + e.getMessage()));
  }

  @ExceptionHandler(NoResourceFoundException.class)
  ResponseEntity<Map<String, Object>> noSuchPath(NoResourceFoundException e) {
    return answer(HttpStatus.NOT_FOUND, ErrorBody.of("not_found", "no such path: /" + e.getResourcePath()));
  }

  @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
  ResponseEntity<Map<String, Object>> wrongMethod(HttpRequestMethodNotSupportedException e) {
    return answer(HttpStatus.METHOD_NOT_ALLOWED, ErrorBody.of("method_not_allowed", e.getMessage()));
  }

  @ExceptionHandler(HttpMediaTypeException.class)
  ResponseEntity<Map<String, Object>> mediaType(HttpMediaTypeException e) {
    return answer(HttpStatus.UNSUPPORTED_MEDIA_TYPE, ErrorBody.of("unsupported_media_type", e.getMessage()));
  }

  @ExceptionHandler(Exception.class)
  ResponseEntity<Map<String, Object>> unexpected(Exception e) {
    log.error("unexpected failure", e);
    return answer(HttpStatus.INTERNAL_SERVER_ERROR, ErrorBody.of("internal", "internal error: " + e));
  }

  private static ResponseEntity<Map<String, Object>> answer(HttpStatus status, Map<String, Object> body) {
    return ResponseEntity.status(status).contentType(MediaType.APPLICATION_JSON).body(body);
  }
}
