package io.relock.internal;

import java.util.Objects;

/**
 * A glob over lock names, as {@link io.relock.Relock#list} takes it: {@code *} any characters,
 * {@code ?} one, {@code [abc]}, {@code [a-z]} or {@code [^a-z]} one of a set or not, {@code \}
 * before a character to match it literally (the syntax of Redis's {@code SCAN MATCH}).
 *
 * <p>Lock keys hold names with {@code {}, {@code }} and {@code %} percent-encoded (see {@link
 * LockKeys}), so a one-character wildcard of the name can be three characters of the key. {@link
 * #keyPattern} is therefore a wider pattern for Redis to pre-select keys with, and {@link
 * #matches} decides on the decoded name.
 */
final class NameGlob {
  private final String pattern;

  /**
   * @throws IllegalArgumentException if {@code pattern} is empty or has a {@code [} without its
   *     {@code ]}; the message names the pattern
   */
  NameGlob(String pattern) {
    Objects.requireNonNull(pattern, "pattern must not be null");
    if (pattern.isEmpty()) {
      throw new IllegalArgumentException("pattern must not be empty; '*' matches every lock name");
    }
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\') {
        i++;
      } else if (c == '[' && classEnd(pattern, i) < 0) {
        throw new IllegalArgumentException("pattern '" + pattern + "' has a '[' at " + i + " without its ']'");
      } else if (c == '[') {
        i = classEnd(pattern, i);
      }
    }
    this.pattern = pattern;
  }

  /**
   * The SCAN MATCH pattern over the keys of {@code prefix}'s locks that holds every name this glob
   * matches (and perhaps more): the prefix with its glob characters escaped, then, inside the
   * braces, {@code *} (which also covers the {@code <tag>}{} of a name with a hash tag of its own)
   * and the glob with literal characters encoded as in the key and each one-character wildcard
   * widened to {@code *}.
   */
  String keyPattern(String prefix) {
    StringBuilder out = new StringBuilder();
    for (char c : prefix.toCharArray()) {
      out.append(escaped(c));
    }
    out.append("{*");
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\' && i + 1 < pattern.length()) {
        out.append(literal(pattern.charAt(++i)));
      } else if (c == '?') {
        out.append('*');
      } else if (c == '[') {
        out.append('*');
        i = classEnd(pattern, i);
      } else if (c == '*') {
        out.append('*');
      } else {
        out.append(literal(c));
      }
    }
    return out.append('}').toString();
  }

  private static String literal(char c) {
    String encoded = LockKeys.encode(String.valueOf(c));
    return encoded.length() > 1 ? encoded : escaped(c);
  }

  private static String escaped(char c) {
    return "*?[]\\".indexOf(c) >= 0 ? "\\" + c : String.valueOf(c);
  }

  /** Whether {@code name} matches the glob, the whole of it. */
  boolean matches(String name) {
    return matches(0, name, 0);
  }

  private boolean matches(int p, String s, int i) {
    while (p < pattern.length()) {
      char c = pattern.charAt(p);
      if (c == '*') {
        while (p + 1 < pattern.length() && pattern.charAt(p + 1) == '*') {
          p++;
        }
        for (int j = i; j <= s.length(); j++) {
          if (matches(p + 1, s, j)) {
            return true;
          }
        }
        return false;
      }
      if (i >= s.length()) {
        return false;
      }
      if (c == '?') {
        p++;
      } else if (c == '[') {
        int end = classEnd(pattern, p);
        if (!inClass(pattern.substring(p + 1, end), s.charAt(i))) {
          return false;
        }
        p = end + 1;
      } else {
        if (c == '\\' && p + 1 < pattern.length()) {
          c = pattern.charAt(++p);
        }
        if (c != s.charAt(i)) {
          return false;
        }
        p++;
      }
      i++;
    }
    return i == s.length();
  }

  /** Whether {@code c} is in the set {@code body} (a class without its brackets). */
  private static boolean inClass(String body, char c) {
    boolean negated = body.startsWith("^");
    boolean found = false;
    for (int i = negated ? 1 : 0; i < body.length(); i++) {
      char from = body.charAt(i);
      if (from == '\\' && i + 1 < body.length()) {
        from = body.charAt(++i);
      }
      char to = from;
      if (i + 2 < body.length() && body.charAt(i + 1) == '-') {
        to = body.charAt(i + 2);
        if (to == '\\' && i + 3 < body.length()) {
          to = body.charAt(++i + 2);
        }
        i += 2;
      }
      if (from <= c && c <= to || to <= c && c <= from) {
        found = true;
      }
    }
    return found != negated;
  }

  /** Where the class opened at {@code open} ends (its ']'), or -1. */
  private static int classEnd(String pattern, int open) {
    for (int i = open + 1; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\') {
        i++;
      } else if (c == ']') {
        return i;
      }
    }
    return -1;
  }

  @Override
  public String toString() {
    return pattern;
  }
}
