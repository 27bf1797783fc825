package io.relock.cli;

import java.io.Console;

/** The terminal to ask a person on, if relock runs attached to one. */
final class Terminal {
  private Terminal() {}

  /**
   * The console when stdin and stdout are a terminal, else null. Java 22 and later return a
   * console even without a terminal and say so with {@code isTerminal()}, read here by reflection
   * since relock builds for Java 17.
   */
  static Console interactive() {
    Console console = System.console();
    if (console == null) {
      return null;
    }
    try {
      Object terminal = Console.class.getMethod("isTerminal").invoke(console);
      return Boolean.TRUE.equals(terminal) ? console : null;
    } catch (ReflectiveOperationException beforeJava22) {
      return console;
    }
  }
}
