package io.relock.lettuce;

import io.lettuce.core.RedisURI;
import io.lettuce.core.SslVerifyMode;
import io.relock.spi.RedisTarget;
import io.relock.spi.RedisUri;

/**
 * Lettuce's {@link RedisURI}s, built from the parts of URIs that relock-core's {@link RedisUri}
 * parsed: so that this driver reads the same URIs as the Jedis driver, and refuses the same ones
 * with the same messages (Lettuce's own parser quotes the input, password included, when it fails,
 * and cuts a password at a raw {@code /}).
 */
final class LettuceUris {
  private LettuceUris() {}

  /** One server, or one sentinel (without the database, which is the primary's). */
  static RedisURI of(RedisUri uri, boolean withDatabase) {
    RedisURI.Builder b = RedisURI.builder().withHost(uri.host()).withPort(uri.port())
        .withSsl(uri.tls()).withVerifyPeer(verifyMode(uri.verifyPeer()));
    if (withDatabase) {
      b.withDatabase(uri.database());
    }
    withCredentials(b, uri.user(), uri.password());
    return b.build();
  }

  /** {@code uri} as Lettuce reads it. */
  static RedisURI of(String uri) {
    return of(RedisUri.parse(uri), true);
  }

  /**
   * A {@link RedisTarget.Kind#SENTINEL} target: each sentinel with its own credentials and TLS; the
   * primary with the first sentinel's TLS and database, and the target's primary credentials (else
   * the first sentinel's).
   */
  static RedisURI sentinel(RedisTarget target) {
    RedisUri first = RedisUri.parse(target.nodes().get(0));
    RedisURI.Builder b = RedisURI.builder().withSentinelMasterId(target.masterName())
        .withSsl(first.tls()).withVerifyPeer(verifyMode(first.verifyPeer())).withDatabase(first.database());
    for (String node : target.nodes()) {
      b.withSentinel(of(RedisUri.parse(node), false));
    }
    RedisTarget.Credentials primary = target.primaryCredentials();
    if (primary != null) {
      withCredentials(b, primary.user(), primary.password());
    } else {
      withCredentials(b, first.user(), first.password());
    }
    return b.build();
  }

  private static void withCredentials(RedisURI.Builder b, String user, String password) {
    if (password == null) {
      return;
    }
    if (user != null) {
      b.withAuthentication(user, (CharSequence) password);
    } else {
      b.withPassword((CharSequence) password);
    }
  }

  private static SslVerifyMode verifyMode(RedisUri.PeerVerification verification) {
    return switch (verification) {
      case NONE -> SslVerifyMode.NONE;
      case CA -> SslVerifyMode.CA;
      case FULL -> SslVerifyMode.FULL;
    };
  }
}
