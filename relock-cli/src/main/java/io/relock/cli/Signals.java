package io.relock.cli;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.function.Consumer;

/**
 * SIGINT and SIGTERM for {@code run} and {@code watch}: handled instead of ending the JVM, so that
 * {@code run} can pass them to its command and still release the lock and exit with the command's
 * code. {@code sun.misc.Signal}, in the JDK's {@code jdk.unsupported} module, is the one way a Java
 * program can do that; it is reached by reflection so that compiling against {@code --release 17}
 * does not warn about it on every build.
 */
final class Signals {
  private Signals() {}

  /** From now on, SIGINT and SIGTERM call {@code handler} with "INT" or "TERM" (on a JVM thread). */
  static void handle(Consumer<String> handler) {
    try {
      Class<?> signal = Class.forName("sun.misc.Signal");
      Class<?> signalHandler = Class.forName("sun.misc.SignalHandler");
      Method getName = signal.getMethod("getName");
      Object proxy = Proxy.newProxyInstance(Signals.class.getClassLoader(), new Class<?>[] {signalHandler},
          (self, method, args) -> {
            if (method.getName().equals("handle")) {
              handler.accept((String) getName.invoke(args[0]));
              return null;
            }
            return method.getName().equals("hashCode") ? System.identityHashCode(self)
                : method.getName().equals("equals") ? self == args[0] : "relock signal handler";
          });
      Method handle = signal.getMethod("handle", signal, signalHandler);
      for (String name : new String[] {"INT", "TERM"}) {
        handle.invoke(null, signal.getConstructor(String.class).newInstance(name), proxy);
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      // Without it, SIGINT and SIGTERM end relock as they end any Java program: its shutdown hooks
      // still run, but the command is not told and relock's exit code is the signal's.
      System.err.println("relock: cannot handle SIGINT and SIGTERM on this Java (" + e + ")");
    }
  }

  /** The exit code of a process ended by the signal {@code name}, as shells report it. */
  static int exitCodeOf(String name) {
    return 128 + ("INT".equals(name) ? 2 : 15);
  }

  /**
   * Sends signal {@code name} to process {@code pid} with {@code kill} (the JDK can send only SIGTERM
   * and SIGKILL to other processes).
   */
  static void send(long pid, String name) {
    try {
      new ProcessBuilder("kill", "-" + name, Long.toString(pid)).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
    } catch (IOException e) {
      System.err.println("relock: could not send SIG" + name + " to " + pid + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
