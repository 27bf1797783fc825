package io.relock.internal;

/** Keeps passwords out of messages and logs. */
public final class Uris {
  private Uris() {}

  /**
   * The URI with any password in its user-info replaced by {@code ***}: {@code
   * redis://user:secret@host} becomes {@code redis://user:***@host}; {@code redis://secret@host}
   * (password only) becomes {@code redis://***@host}.
   */
  public static String redact(String uri) {
    if (uri == null) {
      return null;
    }
    int scheme = uri.indexOf("://");
    if (scheme < 0) {
      return uri;
    }
    int start = scheme + 3;
    int at = uri.lastIndexOf('@');
    int slash = uri.indexOf('/', start);
    if (at < start || (slash >= 0 && slash < at)) {
      return uri;
    }
    String userInfo = uri.substring(start, at);
    int colon = userInfo.indexOf(':');
    String redacted = colon < 0 ? "***" : userInfo.substring(0, colon) + ":***";
    return uri.substring(0, start) + redacted + uri.substring(at);
  }
}
