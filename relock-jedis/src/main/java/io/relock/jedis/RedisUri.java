package io.relock.jedis;

import io.relock.spi.DriverSettings;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import javax.net.ssl.SSLParameters;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;

/**
 * A parsed {@code redis://[[user]:password@]host[:port][/db][?verifyPeer=NONE|CA|FULL]} or {@code
 * rediss://...} URI, turned into Jedis settings.
 *
 * <p>Parsed by hand rather than with {@link java.net.URI}, whose exceptions quote the whole input,
 * password included. No message thrown here, and no {@link #toString()}, contains the password.
 * The user info is split at the last {@code @}, so a password with an unescaped {@code @}, {@code /}
 * or {@code ?} still parses; percent-escapes in the user and password are decoded.
 */
final class RedisUri {
  static final int DEFAULT_PORT = 6379;

  /** How a {@code rediss://} connection checks the server's certificate (Lettuce's names). */
  enum PeerVerification {
    /** Trusts any certificate: for test servers with self-signed certificates only. */
    NONE,
    /** The certificate must chain to a trusted CA; the host name is not checked. */
    CA,
    /** A trusted CA and the host name, as HTTPS does. The default. */
    FULL
  }

  final String host;
  final int port;
  final String user;
  private final String password;
  final int database;
  final boolean tls;
  final PeerVerification verifyPeer;

  private RedisUri(String host, int port, String user, String password, int database, boolean tls,
      PeerVerification verifyPeer) {
    this.host = host;
    this.port = port;
    this.user = user;
    this.password = password;
    this.database = database;
    this.tls = tls;
    this.verifyPeer = verifyPeer;
  }

  /**
   * @throws IllegalArgumentException naming the offending part (never the password) if {@code uri}
   *     is not a Redis URI this driver understands
   */
  static RedisUri parse(String uri) {
    Objects.requireNonNull(uri, "uri");
    int schemeEnd = uri.indexOf("://");
    if (schemeEnd < 0) {
      throw new IllegalArgumentException("a Redis URI starts with redis:// or rediss://; got no scheme");
    }
    String scheme = uri.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
    boolean tls;
    if (scheme.equals("redis")) {
      tls = false;
    } else if (scheme.equals("rediss")) {
      tls = true;
    } else {
      throw new IllegalArgumentException("unsupported scheme '" + scheme + "' in a Redis URI; use redis:// or rediss://");
    }
    String rest = uri.substring(schemeEnd + 3);

    String user = null;
    String password = null;
    int at = rest.lastIndexOf('@');
    if (at >= 0) {
      String userInfo = rest.substring(0, at);
      rest = rest.substring(at + 1);
      int colon = userInfo.indexOf(':');
      if (colon < 0) {
        password = decode(userInfo, "password"); // redis://password@host, as Lettuce reads it
      } else {
        user = decode(userInfo.substring(0, colon), "user");
        password = decode(userInfo.substring(colon + 1), "password");
      }
      if (user != null && user.isEmpty()) {
        user = null;
      }
      if (password.isEmpty()) {
        password = null;
      }
    }

    String query = "";
    int question = rest.indexOf('?');
    if (question >= 0) {
      query = rest.substring(question + 1);
      rest = rest.substring(0, question);
    }
    String path = "";
    int slash = rest.indexOf('/');
    if (slash >= 0) {
      path = rest.substring(slash + 1);
      rest = rest.substring(0, slash);
    }

    String host;
    String portText = null;
    if (rest.startsWith("[")) {
      int close = rest.indexOf(']');
      if (close < 0) {
        throw new IllegalArgumentException("unclosed '[' in the host of a Redis URI: '" + rest + "'");
      }
      host = rest.substring(1, close);
      String after = rest.substring(close + 1);
      if (after.startsWith(":")) {
        portText = after.substring(1);
      } else if (!after.isEmpty()) {
        throw new IllegalArgumentException("unexpected '" + after + "' after the host of a Redis URI");
      }
    } else {
      int colon = rest.lastIndexOf(':');
      host = colon < 0 ? rest : rest.substring(0, colon);
      portText = colon < 0 ? null : rest.substring(colon + 1);
    }
    if (host.isEmpty()) {
      throw new IllegalArgumentException("no host in the Redis URI");
    }
    int port = portText == null ? DEFAULT_PORT : number(portText, "port", 1, 65_535);
    int database = path.isEmpty() ? 0 : number(path, "database", 0, Integer.MAX_VALUE);

    PeerVerification verifyPeer = PeerVerification.FULL;
    for (String parameter : query.split("&")) {
      if (parameter.isEmpty()) {
        continue;
      }
      int eq = parameter.indexOf('=');
      String name = eq < 0 ? parameter : parameter.substring(0, eq);
      String value = eq < 0 ? "" : parameter.substring(eq + 1);
      switch (name) {
        case "verifyPeer" -> verifyPeer = verification(value);
        case "database", "db" -> database = number(value, "database", 0, Integer.MAX_VALUE);
        default -> throw new IllegalArgumentException("unknown parameter '" + name
            + "' in a Redis URI; the Jedis driver understands verifyPeer and database");
      }
    }
    return new RedisUri(host, port, user, password, database, tls, verifyPeer);
  }

  private static PeerVerification verification(String value) {
    switch (value.toUpperCase(Locale.ROOT)) {
      case "NONE", "FALSE" -> {
        return PeerVerification.NONE;
      }
      case "CA" -> {
        return PeerVerification.CA;
      }
      case "FULL", "TRUE" -> {
        return PeerVerification.FULL;
      }
      default -> throw new IllegalArgumentException("verifyPeer must be NONE, CA or FULL, not '" + value + "'");
    }
  }

  private static int number(String text, String what, int min, int max) {
    try {
      int n = Integer.parseInt(text);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("bad " + what + " '" + text + "' in a Redis URI (" + min + " to " + max + ")");
  }

  /** Percent-decoding as in URIs ({@code +} stays a plus sign, unlike form encoding). */
  private static String decode(String text, String what) {
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
          // Never quote the text: it may be the password.
          throw new IllegalArgumentException("bad percent-escape in the " + what + " of a Redis URI");
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

  HostAndPort endpoint() {
    return new HostAndPort(host, port);
  }

  /** Jedis settings for this URI: credentials, database, TLS, and the timeouts and name from core. */
  JedisClientConfig clientConfig(DriverSettings settings) {
    return clientConfig(settings, database);
  }

  /**
   * Jedis settings for a sentinel at this URI: as {@link #clientConfig}, but without the database,
   * which applies to the primary only (sentinels have none, and refuse {@code SELECT}).
   */
  JedisClientConfig sentinelConfig(DriverSettings settings) {
    return clientConfig(settings, 0);
  }

  private JedisClientConfig clientConfig(DriverSettings settings, int database) {
    DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
        .connectionTimeoutMillis(millis(settings.connectTimeout()))
        .socketTimeoutMillis(millis(settings.commandTimeout()))
        .clientName(settings.clientName())
        .database(database)
        .user(user)
        .password(password);
    if (tls) {
      config.ssl(true);
      switch (verifyPeer) {
        case NONE -> config.sslSocketFactory(TrustAllCertificates.socketFactory());
        case CA -> {
          // The default trust store checks the chain; nothing checks the host name.
        }
        case FULL -> {
          SSLParameters parameters = new SSLParameters();
          parameters.setEndpointIdentificationAlgorithm("HTTPS");
          config.sslParameters(parameters);
        }
      }
    }
    return config.build();
  }

  /** Jedis takes int milliseconds; 0 would mean "wait forever", so round tiny values up. */
  private static int millis(Duration d) {
    long ms = Math.max(1, d.toMillis());
    return (int) Math.min(Integer.MAX_VALUE, ms);
  }

  /** The URI without the password, for messages and logs. */
  @Override
  public String toString() {
    String hostPart = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    String userInfo = password == null ? "" : (user == null ? "" : user) + ":***@";
    return (tls ? "rediss://" : "redis://") + userInfo + hostPart + ":" + port
        + (database == 0 ? "" : "/" + database)
        + (tls && verifyPeer != PeerVerification.FULL ? "?verifyPeer=" + verifyPeer : "");
  }
}
