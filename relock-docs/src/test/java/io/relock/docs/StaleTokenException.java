package io.relock.docs;

/** What {@link FencedLedger} throws at a holder whose token is older than one it has accepted. */
final class StaleTokenException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  StaleTokenException(long token, long highest) {
    super("fencing token " + token + " is older than " + highest + ", which the ledger has accepted");
  }
}
