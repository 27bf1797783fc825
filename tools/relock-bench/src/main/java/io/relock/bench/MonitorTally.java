package io.relock.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Counts, while it is open, the commands Redis reports through {@code MONITOR}, split by who ran
 * them: a client, or a Lua script (which {@code MONITOR} shows as {@code [0 lua]}). Monitoring
 * costs Redis a lot at high rates, so the bench uses it only in short calibration windows apart
 * from the measured ones, and for the slow held-locks scenario.
 */
final class MonitorTally implements AutoCloseable {

  private final Socket socket;
  private final Thread reader;
  private final Map<String, long[]> counts = new HashMap<>();
  private volatile boolean closing;

  private MonitorTally(Socket socket) {
    this.socket = socket;
    this.reader = new Thread(this::read, "bench-monitor");
    reader.setDaemon(true);
  }

  /** Connects to the Redis at {@code redisUri} (password and user honoured) and starts counting. */
  static MonitorTally start(String redisUri) {
    URI uri = URI.create(redisUri);
    Socket socket = new Socket();
    try {
      socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort()), 5_000);
      OutputStream out = socket.getOutputStream();
      if (uri.getUserInfo() != null) {
        String[] parts = uri.getUserInfo().split(":", 2);
        out.write(parts.length == 2 && !parts[0].isEmpty()
            ? command("AUTH", parts[0], parts[1]) : command("AUTH", parts[parts.length - 1]));
      }
      out.write(command("MONITOR"));
      out.flush();
    } catch (IOException e) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // Reporting the first failure.
      }
      throw new UncheckedIOException("could not start MONITOR on " + uri.getHost() + ":" + uri.getPort(), e);
    }
    MonitorTally tally = new MonitorTally(socket);
    tally.reader.start();
    return tally;
  }

  private static byte[] command(String... args) {
    StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
    for (String a : args) {
      b.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  private void read() {
    try (BufferedReader in = new BufferedReader(
        new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8), 1 << 16)) {
      String line;
      while ((line = in.readLine()) != null) {
        Sample s = parse(line);
        if (s != null) {
          synchronized (counts) {
            counts.computeIfAbsent(s.command(), c -> new long[2])[s.fromScript() ? 1 : 0]++;
          }
        }
      }
    } catch (IOException e) {
      if (!closing) {
        System.err.println("bench: MONITOR connection lost: " + e);
      }
    }
  }

  /** One monitored command: its name (lower case) and whether a script ran it. */
  record Sample(String command, boolean fromScript) {}

  /**
   * Reads a {@code MONITOR} line such as {@code +1700000000.123456 [0 127.0.0.1:5000] "SET" "k"}
   * or {@code +1700000000.1 [0 lua] "get" "k"}; null for anything else ({@code +OK}, errors).
   */
  static Sample parse(String line) {
    int open = line.indexOf(" [");
    int close = open < 0 ? -1 : line.indexOf("] \"", open);
    if (close < 0) {
      return null;
    }
    String source = line.substring(open + 2, close);
    int space = source.indexOf(' ');
    boolean lua = space >= 0 && source.substring(space + 1).equals("lua");
    int start = close + 3;
    int end = line.indexOf('"', start);
    if (end < 0) {
      return null;
    }
    return new Sample(line.substring(start, end).toLowerCase(Locale.ROOT), lua);
  }

  /** Stops counting and returns the split of what was seen. */
  CallSplit finish() {
    return CallSplit.fromMonitor(finishCounts());
  }

  /** Stops counting and returns {client, script} counts per command. */
  private Map<String, long[]> finishCounts() {
    close();
    Map<String, long[]> copy = new HashMap<>();
    synchronized (counts) {
      counts.forEach((k, v) -> copy.put(k, v.clone()));
    }
    return copy;
  }

  /**
   * {@code MONITOR} on each of several servers (a cluster's primaries), started one after the
   * other and counted together.
   */
  static final class OnAll implements AutoCloseable {

    private final List<MonitorTally> tallies = new ArrayList<>();

    private OnAll() {}

    static OnAll start(List<String> redisUris) {
      OnAll all = new OnAll();
      try {
        for (String uri : redisUris) {
          all.tallies.add(MonitorTally.start(uri));
        }
      } catch (RuntimeException e) {
        all.close();
        throw e;
      }
      return all;
    }

    /** Stops counting everywhere and returns the split of what all of them saw. */
    CallSplit finish() {
      Map<String, long[]> sum = new HashMap<>();
      for (MonitorTally t : tallies) {
        t.finishCounts().forEach((k, v) -> {
          long[] s = sum.computeIfAbsent(k, c -> new long[2]);
          s[0] += v[0];
          s[1] += v[1];
        });
      }
      return CallSplit.fromMonitor(sum);
    }

    @Override
    public void close() {
      tallies.forEach(MonitorTally::close);
    }
  }

  @Override
  public void close() {
    closing = true;
    try {
      socket.close();
      reader.join(TimeUnit.SECONDS.toMillis(5));
    } catch (IOException e) {
      // Closing anyway.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
