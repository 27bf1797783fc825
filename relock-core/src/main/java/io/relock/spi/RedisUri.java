package io.relock.spi;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A parsed {@code redis://[[user]:password@]host[:port][/database][?parameters]} URI ({@code
 * rediss://} for TLS), and the one place relock hides passwords in what it prints.
 *
 * <p>Both drivers read their URIs through this class, so they accept and refuse the same ones with
 * the same messages. The user and password are percent-decoded. Reserved characters ({@code / ? #
 * @}), spaces and {@code %} in a password must be percent-encoded ({@code %2F %3F %23 %40 %20
 * %25}): a URI where one stands raw is refused with a message that says so. IPv6 hosts go in
 * brackets ({@code redis://[::1]:6379}). Parameters: {@code verifyPeer=NONE|CA|FULL} (for {@code
 * rediss://}, default {@code FULL}), {@code database} or {@code db}; Lettuce's {@code timeout},
 * {@code clientName}, {@code libraryName} and {@code libraryVersion} are accepted and ignored
 * (relock's own settings decide those); any other is refused.
 *
 * <p>No message thrown here contains a password, nor does {@link #toString()}: a password shows as
 * {@code ***}, whatever its length; the user name stays visible. {@link #redact(String)} does the
 * same to the URIs in any text, and {@link #redact(String, Collection)} also to known passwords
 * wherever they appear.
 */
public final class RedisUri {
  /** The port of a URI that names none. */
  public static final int DEFAULT_PORT = 6379;

  /** What stands for a password in everything relock prints. */
  public static final String HIDDEN = "***";

  private static final String RESERVED = "reserved characters in a password (such as / ? # @) must be"
      + " percent-encoded (%2F %3F %23 %40)";

  /** A scheme and its {@code ://}, where a URI starts in free text. */
  private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*://");

  /** Shorter passwords are not scrubbed from free text: they would hide ordinary words. */
  private static final int SHORTEST_SCRUBBED = 4;

  /** How a {@code rediss://} connection checks the server's certificate (Lettuce's names). */
  public enum PeerVerification {
    /** Trusts any certificate: for test servers with self-signed certificates only. */
    NONE,
    /** The certificate must chain to a trusted CA; the host name is not checked. */
    CA,
    /** A trusted CA and the host name, as HTTPS does. The default. */
    FULL
  }

  private final boolean tls;
  private final String user;
  private final String password;
  private final String host;
  private final int port;
  private final int database;
  private final PeerVerification verifyPeer;

  private RedisUri(boolean tls, String user, String password, String host, int port, int database,
      PeerVerification verifyPeer) {
    this.tls = tls;
    this.user = user;
    this.password = password;
    this.host = host;
    this.port = port;
    this.database = database;
    this.verifyPeer = verifyPeer;
  }

  /**
   * Reads a {@code redis://} or {@code rediss://} URI.
   *
   * @param uri the URI, in the form the class description gives
   * @return the parsed URI
   * @throws NullPointerException if {@code uri} is null
   * @throws IllegalArgumentException if {@code uri} is not such a URI; the message names it with
   *     its password hidden, and says what is wrong
   */
  public static RedisUri parse(String uri) {
    Objects.requireNonNull(uri, "uri");
    Parts parts = Parts.split(uri);
    boolean tls;
    switch (parts.scheme.toLowerCase(Locale.ROOT)) {
      case "redis" -> tls = false;
      case "rediss" -> tls = true;
      default -> throw invalid(uri, "unsupported scheme '" + parts.scheme + "'; use redis:// or rediss://"
          + (parts.scheme.toLowerCase(Locale.ROOT).endsWith("-sentinel")
              ? " (a redis-sentinel:// URI names a Sentinel target, not one server)" : ""));
    }
    if (parts.fragment != null) {
      throw invalid(uri, "a '#' has no meaning in a Redis URI (in a password it is written %23)");
    }
    if (parts.hosts.indexOf(',') >= 0) {
      throw invalid(uri, "it names several hosts; a redis:// URI names one server");
    }
    String[] credentials = parts.credentials(uri);
    String[] hostPort = hostAndPort(uri, parts.hosts, DEFAULT_PORT);
    int port = Integer.parseInt(hostPort[1]);
    int database = database(uri, parts.path);
    PeerVerification verifyPeer = PeerVerification.FULL;
    for (String parameter : parts.query.split("&")) {
      if (parameter.isEmpty()) {
        continue;
      }
      int eq = parameter.indexOf('=');
      String name = eq < 0 ? parameter : parameter.substring(0, eq);
      String value = eq < 0 ? "" : parameter.substring(eq + 1);
      switch (name) {
        case "verifyPeer" -> verifyPeer = verification(uri, value);
        case "database", "db" -> database = number(uri, value, "database", 0, Integer.MAX_VALUE);
        case "timeout", "clientName", "libraryName", "libraryVersion" -> {
          // Lettuce's; relock's settings decide these.
        }
        default -> throw invalid(uri, "unknown parameter '" + name + "'; relock reads verifyPeer and database"
            + " (and ignores Lettuce's timeout, clientName, libraryName and libraryVersion)");
      }
    }
    return new RedisUri(tls, credentials[0], credentials[1], hostPort[0], port, database, verifyPeer);
  }

  /**
   * Whether the scheme is {@code rediss://}.
   *
   * @return true for TLS
   */
  public boolean tls() {
    return tls;
  }

  /**
   * The ACL user, percent-decoded.
   *
   * @return the user, or null for the default user
   */
  public String user() {
    return user;
  }

  /**
   * The password, percent-decoded, for a driver to authenticate with. Never print it.
   *
   * @return the password, or null if the URI has none
   */
  public String password() {
    return password;
  }

  /**
   * The host, without the brackets of an IPv6 address.
   *
   * @return the host
   */
  public String host() {
    return host;
  }

  /**
   * The port, {@value #DEFAULT_PORT} when the URI names none.
   *
   * @return the port
   */
  public int port() {
    return port;
  }

  /**
   * The database, 0 when the URI names none.
   *
   * @return the database number
   */
  public int database() {
    return database;
  }

  /**
   * How a TLS connection checks the server's certificate.
   *
   * @return the verification, FULL by default
   */
  public PeerVerification verifyPeer() {
    return verifyPeer;
  }

  /**
   * {@code host:port}, an IPv6 host in brackets: how messages name the server.
   *
   * @return the server's address
   */
  public String hostAndPort() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }

  /**
   * This URI with other credentials (the primary's behind Sentinel, say).
   *
   * @param user the ACL user, or null for the default user
   * @param password the password, or null for none
   * @return a URI that differs from this one in its credentials only
   */
  public RedisUri withCredentials(String user, String password) {
    return new RedisUri(tls, user, password, host, port, database, verifyPeer);
  }

  /**
   * The URI with its password shown as {@value #HIDDEN}: {@code redis://app:***@host:6379/2}. The
   * port is always shown, the database unless 0, {@code verifyPeer} unless {@code FULL}.
   */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(tls ? "rediss://" : "redis://");
    if (password != null) {
      s.append(user == null ? "" : user).append(':').append(HIDDEN).append('@');
    } else if (user != null) {
      s.append(user).append(":@"); // "user@" would read as a password
    }
    s.append(hostAndPort());
    if (database != 0) {
      s.append('/').append(database);
    }
    if (tls && verifyPeer != PeerVerification.FULL) {
      s.append("?verifyPeer=").append(verifyPeer);
    }
    return s.toString();
  }

  // ---- redaction ------------------------------------------------------------------------------

  /**
   * {@code text} with the password of every URI in it shown as {@value #HIDDEN}: whatever stands
   * between a scheme's {@code ://} and the last {@code @} before the next whitespace or the next
   * URI, but for the user name before its first {@code :}. So a list of URIs, a message quoting
   * several, a {@code redis-sentinel://} URI and a URI whose password holds raw reserved
   * characters are all covered; a raw space in a password ends the URI as the text reads, which is
   * why {@link #redact(String, Collection)} also replaces the passwords themselves.
   *
   * @param text any text; null stays null
   * @return the text with every URI's password hidden
   */
  public static String redact(String text) {
    if (text == null || text.indexOf("://") < 0) {
      return text;
    }
    Matcher m = SCHEME.matcher(text);
    List<int[]> starts = new ArrayList<>();
    while (m.find()) {
      starts.add(new int[] {m.start(), m.end()});
    }
    StringBuilder out = new StringBuilder(text.length());
    int copied = 0;
    for (int i = 0; i < starts.size(); i++) {
      int from = starts.get(i)[1];
      int end = i + 1 < starts.size() ? starts.get(i + 1)[0] : text.length();
      for (int j = from; j < end; j++) {
        if (Character.isWhitespace(text.charAt(j))) {
          end = j;
          break;
        }
      }
      int at = text.lastIndexOf('@', end - 1);
      if (at < from) {
        continue;
      }
      out.append(text, copied, from).append(hiddenUserInfo(text.substring(from, at)));
      copied = at;
    }
    return out.append(text, copied, text.length()).toString();
  }

  /**
   * As {@link #redact(String)}, and also every one of {@code passwords} (of four characters or
   * more) wherever it appears, as given or percent-encoded: for messages built from a client
   * library's exceptions, whose text relock does not control.
   *
   * @param text any text; null stays null
   * @param passwords the passwords to hide, raw (not percent-encoded); nulls are skipped
   * @return the text with every URI's password and every known password hidden
   */
  public static String redact(String text, Collection<String> passwords) {
    if (text == null || passwords.isEmpty()) {
      return redact(text);
    }
    Set<String> forms = new LinkedHashSet<>();
    for (String p : passwords) {
      if (p != null && p.length() >= SHORTEST_SCRUBBED) {
        forms.add(p);
        forms.add(encode(p));
        forms.add(encode(p).toLowerCase(Locale.ROOT));
        forms.add(java.net.URLEncoder.encode(p, StandardCharsets.UTF_8));
      }
    }
    List<String> longestFirst = new ArrayList<>(forms);
    longestFirst.sort(Comparator.comparingInt(String::length).reversed());
    // The known passwords first: a raw one in a URI could end the URI early (at a space) for redact(text).
    String scrubbed = text;
    for (String form : longestFirst) {
      scrubbed = scrubbed.replace(form, HIDDEN);
    }
    return redact(scrubbed);
  }

  /**
   * The password of {@code uri} as written (percent-decoded), without checking the rest of it:
   * for hiding it in messages about a URI that may not parse.
   *
   * @param uri a URI, valid or not; may be null
   * @return the password, or null if none can be told
   */
  public static String passwordIn(String uri) {
    if (uri == null) {
      return null;
    }
    int scheme = uri.indexOf("://");
    int at = uri.lastIndexOf('@');
    if (scheme < 0 || at < scheme + 3) {
      return null;
    }
    String userInfo = uri.substring(scheme + 3, at);
    int colon = userInfo.indexOf(':');
    String raw = colon < 0 ? userInfo : userInfo.substring(colon + 1);
    try {
      return decode(raw);
    } catch (IllegalArgumentException e) {
      return raw;
    }
  }

  /** A URI's user info as shown: {@code user:***}, {@code :***}, or {@code ***} (no user). */
  private static String hiddenUserInfo(String userInfo) {
    int colon = userInfo.indexOf(':');
    if (colon < 0) {
      return HIDDEN;
    }
    String user = userInfo.substring(0, colon);
    // A user part holding a reserved character is more likely the start of a raw password.
    for (char c : user.toCharArray()) {
      if ("/?#@[]".indexOf(c) >= 0 || Character.isWhitespace(c)) {
        return HIDDEN;
      }
    }
    return user + ":" + HIDDEN;
  }

  /**
   * One URI, whole, as shown in a message about it: everything between its scheme and its last
   * {@code @} hidden but the user name, so a password with raw spaces or delimiters is hidden
   * entirely ({@link #redact(String)} reads free text, where a space ends a URI). For a value known
   * to be one URI, such as a setting that could not be parsed.
   *
   * @param uri one URI, valid or not
   * @return it with its credentials shown as {@value #HIDDEN}
   */
  public static String shown(String uri) {
    int scheme = uri.indexOf("://");
    int at = uri.lastIndexOf('@');
    if (at < 0) {
      return uri;
    }
    if (scheme < 0 || at < scheme + 3) {
      return HIDDEN + uri.substring(at); // no scheme: "user:pw@host" is all credentials before the @
    }
    return uri.substring(0, scheme + 3) + hiddenUserInfo(uri.substring(scheme + 3, at)) + uri.substring(at);
  }

  /**
   * An {@link IllegalArgumentException} about {@code uri}: {@code invalid Redis URI '<uri, password
   * hidden>': why}.
   */
  static IllegalArgumentException invalid(String uri, String why) {
    return new IllegalArgumentException("invalid Redis URI '" + shown(uri) + "': " + why);
  }

  // ---- parsing --------------------------------------------------------------------------------

  /**
   * A URI cut at its delimiters as RFC 3986 cuts it: the authority ends at the first {@code /},
   * {@code ?} or {@code #}, and the user info at the authority's {@code @}. A raw reserved
   * character in a password moves these cuts; that shows as an {@code @} after the authority, or
   * as two in it, and is refused as such.
   */
  record Parts(String scheme, String userInfo, String hosts, String path, String query, String fragment) {
    static Parts split(String uri) {
      for (int i = 0; i < uri.length(); i++) {
        char c = uri.charAt(i);
        if (Character.isWhitespace(c) || Character.isISOControl(c)) {
          throw invalid(uri, "it contains a space or control character; in a password write a space as %20");
        }
      }
      int schemeEnd = uri.indexOf("://");
      if (schemeEnd <= 0) {
        throw invalid(uri, "it does not start with redis:// or rediss://");
      }
      String scheme = uri.substring(0, schemeEnd);
      String rest = uri.substring(schemeEnd + 3);
      int end = rest.length();
      for (char c : new char[] {'/', '?', '#'}) {
        int i = rest.indexOf(c);
        if (i >= 0) {
          end = Math.min(end, i);
        }
      }
      String authority = rest.substring(0, end);
      String after = rest.substring(end);
      int at = authority.lastIndexOf('@');
      if (after.indexOf('@') >= 0 || (at >= 0 && authority.lastIndexOf('@', at - 1) >= 0)) {
        throw invalid(uri, RESERVED);
      }
      String userInfo = at < 0 ? null : authority.substring(0, at);
      String hosts = authority.substring(at + 1);
      String fragment = null;
      int hash = after.indexOf('#');
      if (hash >= 0) {
        fragment = after.substring(hash + 1);
        after = after.substring(0, hash);
      }
      String query = "";
      int question = after.indexOf('?');
      if (question >= 0) {
        query = after.substring(question + 1);
        after = after.substring(0, question);
      }
      return new Parts(scheme, userInfo, hosts, after, query, fragment);
    }

    /** {user, password}, percent-decoded, each null when absent or empty. */
    String[] credentials(String uri) {
      if (userInfo == null) {
        return new String[2];
      }
      int colon = userInfo.indexOf(':');
      String user;
      String password;
      try {
        // redis://password@host is a password, as Lettuce reads it.
        user = colon < 0 ? null : decode(userInfo.substring(0, colon));
        password = decode(colon < 0 ? userInfo : userInfo.substring(colon + 1));
      } catch (IllegalArgumentException e) {
        throw invalid(uri, "a '%' in the user or password starts no percent-escape; write a '%' as %25");
      }
      return new String[] {user == null || user.isEmpty() ? null : user, password.isEmpty() ? null : password};
    }
  }

  /** {host, port} of one {@code host[:port]} or {@code [v6][:port]}. */
  static String[] hostAndPort(String uri, String hostPort, int defaultPort) {
    String host;
    String portText = null;
    if (hostPort.startsWith("[")) {
      int close = hostPort.indexOf(']');
      if (close < 0) {
        throw invalid(uri, "unclosed '[' in its host");
      }
      host = hostPort.substring(1, close);
      String after = hostPort.substring(close + 1);
      if (after.startsWith(":")) {
        portText = after.substring(1);
      } else if (!after.isEmpty()) {
        throw invalid(uri, "unexpected '" + after + "' after the host");
      }
    } else {
      int colon = hostPort.lastIndexOf(':');
      host = colon < 0 ? hostPort : hostPort.substring(0, colon);
      portText = colon < 0 ? null : hostPort.substring(colon + 1);
      if (host.indexOf(':') >= 0) {
        throw invalid(uri, "an IPv6 host goes in brackets, as in redis://[::1]:6379");
      }
    }
    if (host.isEmpty()) {
      throw invalid(uri, "it names no host");
    }
    int port = portText == null ? defaultPort : number(uri, portText, "port", 1, 65_535);
    return new String[] {host, Integer.toString(port)};
  }

  private static int database(String uri, String path) {
    if (path.isEmpty() || path.equals("/")) {
      return 0;
    }
    return number(uri, path.substring(1), "database", 0, Integer.MAX_VALUE);
  }

  private static PeerVerification verification(String uri, String value) {
    return switch (value.toUpperCase(Locale.ROOT)) {
      case "NONE", "FALSE" -> PeerVerification.NONE;
      case "CA" -> PeerVerification.CA;
      case "FULL", "TRUE" -> PeerVerification.FULL;
      default -> throw invalid(uri, "verifyPeer must be NONE, CA or FULL, not '" + value + "'");
    };
  }

  private static int number(String uri, String text, String what, int min, int max) {
    try {
      int n = Integer.parseInt(text);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw invalid(uri, "bad " + what + " '" + text + "' (" + min + " to " + max + ")");
  }

  /** Percent-decoding as in URIs ({@code +} stays a plus sign, unlike form encoding). */
  static String decode(String text) {
    if (text.indexOf('%') < 0) {
      return text;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '%') {
        int hi = i + 1 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
        int lo = i + 2 < text.length() ? Character.digit(text.charAt(i + 2), 16) : -1;
        if (hi < 0 || lo < 0) {
          throw new IllegalArgumentException("bad percent-escape"); // never quotes the text: a password
        }
        bytes.write(hi << 4 | lo);
        i += 2;
      } else {
        byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        bytes.write(encoded, 0, encoded.length);
      }
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  /**
   * Percent-encodes all but RFC 3986's unreserved characters, as the user info of a URI needs: for
   * building a URI from a user and password given apart.
   *
   * @param text a user name or password
   * @return the text, safe to put between {@code ://} and {@code @}
   */
  public static String encode(String text) {
    StringBuilder out = new StringBuilder(text.length() + 8);
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
        out.append(c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
            .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
      }
    }
    return out.toString();
  }
}
