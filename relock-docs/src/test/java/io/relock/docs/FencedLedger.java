package io.relock.docs;

// snippet:fenced-ledger
/**
 * A resource that checks fencing tokens: it refuses a read or a write whose token is below the
 * highest it has accepted, and accepts an equal one. Checking the read too matters: once a newer
 * holder has read, an older holder's write (computed from an older read) is refused.
 */
final class FencedLedger {
  private long highestToken;   // kept with the data: in a database, a column of the same row
  private long balance;

  synchronized long read(long token) {
    admit(token);
    return balance;
  }

  synchronized void write(long newBalance, long token) {
    admit(token);
    balance = newBalance;
  }

  private void admit(long token) {
    if (token < highestToken) {
      throw new StaleTokenException(token, highestToken);
    }
    highestToken = token;
  }
}
// end:fenced-ledger
