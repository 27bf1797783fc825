package io.relock.jedis;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Accepts every server certificate, for {@code rediss://...?verifyPeer=NONE}: test servers with
 * self-signed certificates, such as relock-testkit's. The connection is encrypted but the server is
 * not authenticated, so never use it where the network is not trusted.
 *
 * <p>Extends {@link X509ExtendedTrustManager} so that JSSE uses it as is, without wrapping it in
 * the host name and algorithm checks it adds around a plain {@code X509TrustManager}.
 */
final class TrustAllCertificates extends X509ExtendedTrustManager {
  private static final X509Certificate[] NONE = new X509Certificate[0];

  private TrustAllCertificates() {}

  /** A socket factory that trusts every server; created once. */
  static SSLSocketFactory socketFactory() {
    return Holder.FACTORY;
  }

  private static final class Holder {
    static final SSLSocketFactory FACTORY = create();

    private static SSLSocketFactory create() {
      try {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new TrustManager[] {new TrustAllCertificates()}, null);
        return context.getSocketFactory();
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("no TLS implementation in this JVM", e);
      }
    }
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) {}

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) {}

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return NONE;
  }
}
