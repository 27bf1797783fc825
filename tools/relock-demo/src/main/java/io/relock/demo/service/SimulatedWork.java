package io.relock.demo.service;

import java.time.Duration;

/** The service's {@link ProcessingStep}: sleeps a fixed time, as the article's {@code doSomeThing()} does. */
public final class SimulatedWork implements ProcessingStep {

  private final Duration time;

  public SimulatedWork(Duration time) {
    if (time.isNegative()) {
      throw new IllegalArgumentException("processing time must not be negative: " + time);
    }
    this.time = time;
  }

  @Override
  public void afterRead(String item, long stockSeen) {
    if (time.isZero()) {
      return;
    }
    try {
      Thread.sleep(time.toMillis(), time.toNanosPart() % 1_000_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
