package io.relock.bench;

import java.util.List;

/** How evenly acquisitions spread over processes or threads. */
final class Fairness {

  private Fairness() {}

  /**
   * Jain's fairness index, (sum x)^2 / (n * sum x^2): 1 when all got the same, 1/n when one got
   * everything. 1 for an empty list or all zeros (nobody was treated worse than anybody).
   */
  static double jainIndex(List<Long> counts) {
    double sum = 0;
    double squares = 0;
    for (long c : counts) {
      sum += c;
      squares += (double) c * c;
    }
    return squares == 0 ? 1 : sum * sum / (counts.size() * squares);
  }

  /** The smallest count divided by the mean count; 1 for an empty list or all zeros. */
  static double minShare(List<Long> counts) {
    if (counts.isEmpty()) {
      return 1;
    }
    long min = Long.MAX_VALUE;
    double sum = 0;
    for (long c : counts) {
      min = Math.min(min, c);
      sum += c;
    }
    return sum == 0 ? 1 : min / (sum / counts.size());
  }
}
