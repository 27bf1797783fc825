package io.relock.testkit;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A minimal RESP2 client: enough to PING, AUTH, SHUTDOWN and run whatever a test wants to check
 * directly, without depending on a real client library. Not thread-safe; one connection per use.
 */
final class RespConnection implements Closeable {

    private static SSLContext trustAll;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RespConnection(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /**
     * Connects, with {@code timeout} bounding the connect, the TLS handshake and every later read.
     */
    static RespConnection open(String host, int port, boolean tls, Duration timeout) throws IOException {
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        Socket plain = new Socket();
        try {
            plain.connect(new InetSocketAddress(host, port), millis);
            plain.setSoTimeout(millis);
            plain.setTcpNoDelay(true);
            if (!tls) {
                return new RespConnection(plain);
            }
            SSLSocket secure = (SSLSocket) trustAllContext().getSocketFactory()
                    .createSocket(plain, host, port, true);
            secure.startHandshake();
            return new RespConnection(secure);
        } catch (IOException | RuntimeException e) {
            plain.close();
            throw e;
        }
    }

    /**
     * Sends one command and reads its reply.
     *
     * @return Long, String, List (elements as here; an error element appears as an
     *     {@link RedisServer.ErrorReply} object) or null
     * @throws RedisServer.ErrorReply if the reply is an error
     */
    Object call(String... args) throws IOException {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        writeAscii(request, "*" + args.length + "\r\n");
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            writeAscii(request, "$" + bytes.length + "\r\n");
            request.write(bytes);
            writeAscii(request, "\r\n");
        }
        request.writeTo(out);
        out.flush();
        Object reply = readReply();
        if (reply instanceof RedisServer.ErrorReply error) {
            throw error;
        }
        return reply;
    }

    private Object readReply() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed by the server");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                return new RedisServer.ErrorReply(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length);
                if (bytes.length < length) {
                    throw new EOFException("connection closed in the middle of a bulk string");
                }
                readLine();
                return new String(bytes, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> elements = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    elements.add(readReply());
                }
                return elements;
            }
            default:
                throw new IOException("unexpected RESP type byte '" + (char) type + "' followed by: " + line);
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed in the middle of a reply");
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(b);
            previous = b;
        }
    }

    private static void writeAscii(ByteArrayOutputStream target, String text) {
        target.writeBytes(text.getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** Trusts any certificate: the test kit's servers use a throwaway self-signed CA. */
    private static synchronized SSLContext trustAllContext() {
        if (trustAll == null) {
            TrustManager acceptAnything = new X509TrustManager() {
                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public X509Certificate[] getAcceptedIssuers() {
                    return new X509Certificate[0];
                }
            };
            try {
                SSLContext context = SSLContext.getInstance("TLS");
                context.init(null, new TrustManager[] {acceptAnything}, new SecureRandom());
                trustAll = context;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("cannot create a TLS context", e);
            }
        }
        return trustAll;
    }
}
