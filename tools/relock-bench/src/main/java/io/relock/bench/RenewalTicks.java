package io.relock.bench;

/**
 * Client calls per renewal tick in a window, from the clients' call count read every few hundred
 * milliseconds. A watchdog that renews all its locks at each tick shows as bursts of calls with
 * quiet between them: counting the bursts wholly inside the window gives each tick's calls
 * whatever the window's phase against the ticks (the window's length over the tick would count a
 * burst cut by the window's edge as a whole one, or miss it). Calls spread over the whole tick show
 * no such bursts; they are counted as the calls over the window's length in ticks.
 *
 * @param calls client calls in the window
 * @param bursts bursts wholly inside the window (0: the calls were not bursty, or no burst fit)
 * @param callsPerTick calls per renewal tick
 */
record RenewalTicks(long calls, int bursts, double callsPerTick) {

  /**
   * @param sampleNanos when each reading was taken (System.nanoTime), in order
   * @param clientCalls the clients' calls so far at each reading
   * @param tickNanos the renewal period
   * @param idleCalls calls in one reading's interval that still count as quiet (a client's
   *     keep-alive PINGs, say)
   */
  static RenewalTicks of(long[] sampleNanos, long[] clientCalls, long tickNanos, long idleCalls) {
    int n = sampleNanos.length;
    if (n < 2) {
      return new RenewalTicks(0, 0, Double.NaN);
    }
    long calls = clientCalls[n - 1] - clientCalls[0];
    long windowNanos = sampleNanos[n - 1] - sampleNanos[0];
    double overWindow = calls / ((double) windowNanos / tickNanos);
    int bursts = 0;
    long inBursts = 0;
    boolean bursty = true;
    int i = 1;
    while (i < n) {
      if (clientCalls[i] - clientCalls[i - 1] <= idleCalls) {
        i++;
        continue;
      }
      int start = i;
      while (i < n && clientCalls[i] - clientCalls[i - 1] > idleCalls) {
        i++;
      }
      // Intervals start..i-1 were busy; whole only if quiet came before and after it in the window.
      boolean whole = start > 1 && i < n;
      if (sampleNanos[i - 1] - sampleNanos[start - 1] > tickNanos / 2) {
        bursty = false; // busy for half a tick or more: not a burst per tick
      }
      if (whole) {
        bursts++;
        inBursts += clientCalls[i - 1] - clientCalls[start - 1];
      }
    }
    if (!bursty || bursts == 0) {
      return new RenewalTicks(calls, 0, overWindow);
    }
    return new RenewalTicks(calls, bursts, (double) inBursts / bursts);
  }
}
