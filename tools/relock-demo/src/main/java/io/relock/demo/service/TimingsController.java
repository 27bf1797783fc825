package io.relock.demo.service;

import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /timings}: the service's {@link PurchaseTimings} totals. */
@RestController
public class TimingsController {

  private final PurchaseTimings timings;

  public TimingsController(PurchaseTimings timings) {
    this.timings = timings;
  }

  @GetMapping(path = "/timings", produces = MediaType.APPLICATION_JSON_VALUE)
  public Map<String, Object> timings() {
    return timings.snapshot();
  }
}
