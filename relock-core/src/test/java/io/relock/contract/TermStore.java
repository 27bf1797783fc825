package io.relock.contract;

import java.util.ArrayList;
import java.util.List;

/** A store that refuses a write whose term is lower than the highest it has accepted. */
final class TermStore {
  private long highestTerm;
  private final List<Long> accepted = new ArrayList<>();

  synchronized boolean save(String report, long term) {
    if (term < highestTerm) {
      return false; // from a leader that has been deposed
    }
    highestTerm = term;
    accepted.add(term);
    return true;
  }

  synchronized List<Long> acceptedTerms() {
    return new ArrayList<>(accepted);
  }
}
