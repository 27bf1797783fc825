package io.relock.torture;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one JSON shape the histories use: a flat object of strings, whole numbers, booleans and
 * nulls on one line. Small enough to write by hand, so the workers need no JSON library.
 */
final class FlatJson {

  private FlatJson() {}

  /** Writes {@code fields} as one JSON object; values must be String, Long/Integer, Boolean or null. */
  static String write(Map<String, ?> fields) {
    StringBuilder out = new StringBuilder(160).append('{');
    boolean first = true;
    for (Map.Entry<String, ?> e : fields.entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      quote(out, e.getKey());
      out.append(':');
      Object v = e.getValue();
      if (v == null || v instanceof Number || v instanceof Boolean) {
        out.append(v);
      } else if (v instanceof String s) {
        quote(out, s);
      } else {
        throw new IllegalArgumentException("unsupported JSON value " + v.getClass().getName() + " for '" + e.getKey() + "'");
      }
    }
    return out.append('}').toString();
  }

  private static void quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  /**
   * Parses one flat object. Numbers come back as Long, strings as String, booleans as Boolean.
   *
   * @throws IllegalArgumentException naming the offending line if it is not such an object (for
   *     example the half-written last line of a worker killed mid-write)
   */
  static Map<String, Object> parse(String line) {
    Parser p = new Parser(line);
    try {
      return p.object();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a flat JSON object at column " + p.pos + ": " + line, e);
    }
  }

  private static final class Parser {
    private final String s;
    private int pos;

    Parser(String s) {
      this.s = s;
    }

    Map<String, Object> object() {
      Map<String, Object> fields = new LinkedHashMap<>();
      skipSpace();
      expect('{');
      skipSpace();
      if (peek() == '}') {
        pos++;
        return end(fields);
      }
      while (true) {
        skipSpace();
        String key = string();
        skipSpace();
        expect(':');
        skipSpace();
        fields.put(key, value());
        skipSpace();
        char c = s.charAt(pos++);
        if (c == '}') {
          return end(fields);
        }
        if (c != ',') {
          throw new IllegalArgumentException("expected , or }");
        }
      }
    }

    private Map<String, Object> end(Map<String, Object> fields) {
      skipSpace();
      if (pos != s.length()) {
        throw new IllegalArgumentException("text after the object");
      }
      return fields;
    }

    private Object value() {
      char c = peek();
      if (c == '"') {
        return string();
      }
      if (s.startsWith("true", pos)) {
        pos += 4;
        return Boolean.TRUE;
      }
      if (s.startsWith("false", pos)) {
        pos += 5;
        return Boolean.FALSE;
      }
      if (s.startsWith("null", pos)) {
        pos += 4;
        return null;
      }
      int start = pos;
      if (c == '-') {
        pos++;
      }
      while (pos < s.length() && Character.isDigit(s.charAt(pos))) {
        pos++;
      }
      if (pos == start) {
        throw new IllegalArgumentException("expected a value");
      }
      return Long.parseLong(s.substring(start, pos));
    }

    private String string() {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (true) {
        char c = s.charAt(pos++);
        if (c == '"') {
          return out.toString();
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        char e = s.charAt(pos++);
        switch (e) {
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'u' -> {
            out.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
            pos += 4;
          }
          default -> out.append(e);
        }
      }
    }

    private char peek() {
      return s.charAt(pos);
    }

    private void expect(char c) {
      if (s.charAt(pos) != c) {
        throw new IllegalArgumentException("expected " + c);
      }
      pos++;
    }

    private void skipSpace() {
      while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
        pos++;
      }
    }
  }
}
