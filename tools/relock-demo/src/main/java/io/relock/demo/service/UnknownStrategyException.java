package io.relock.demo.service;

import java.util.Collection;

/** A request named a lock strategy the service does not have. */
public class UnknownStrategyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UnknownStrategyException(String strategy, Collection<String> known) {
    super("unknown strategy '" + strategy + "'; use one of " + String.join(", ", known));
  }
}
