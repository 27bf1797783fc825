package io.relock.bench;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The little JSON the bench needs: results files and the lines worker processes print. Values are
 * {@link Map} (insertion-ordered on reading), {@link List}, {@link String}, {@link Number} ({@link
 * Long} for integers, {@link Double} otherwise on reading), {@link Boolean} and {@code null}.
 */
public final class Json {

  private Json() {}

  /** One-line JSON text for {@code value}. */
  public static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(value, out, -1, 0);
    return out.toString();
  }

  /** Indented JSON text for {@code value}, for files people read. */
  public static String writePretty(Object value) {
    StringBuilder out = new StringBuilder();
    write(value, out, 2, 0);
    return out.append('\n').toString();
  }

  private static void write(Object value, StringBuilder out, int indent, int depth) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String s) {
      writeString(s, out);
    } else if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        out.append("null");
      } else {
        // Six significant digits: plenty for measurements, and files stay readable.
        out.append(new BigDecimal(d).round(new MathContext(6)).stripTrailingZeros().toPlainString());
      }
    } else if (value instanceof Number || value instanceof Boolean) {
      out.append(value);
    } else if (value instanceof Map<?, ?> map) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!first) {
          out.append(',');
        }
        newline(out, indent, depth + 1);
        writeString(String.valueOf(e.getKey()), out);
        out.append(indent < 0 ? ":" : ": ");
        write(e.getValue(), out, indent, depth + 1);
        first = false;
      }
      if (!map.isEmpty()) {
        newline(out, indent, depth);
      }
      out.append('}');
    } else if (value instanceof Iterable<?> list) {
      out.append('[');
      boolean first = true;
      for (Object item : list) {
        if (!first) {
          out.append(indent < 0 ? "," : ", ");
        }
        write(item, out, indent, depth + 1);
        first = false;
      }
      out.append(']');
    } else {
      throw new IllegalArgumentException("cannot write " + value.getClass().getName() + " as JSON");
    }
  }

  private static void newline(StringBuilder out, int indent, int depth) {
    if (indent >= 0) {
      out.append('\n').append(" ".repeat(indent * depth));
    }
  }

  private static void writeString(String s, StringBuilder out) {
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
            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  /**
   * Parses JSON text.
   *
   * @throws IllegalArgumentException if {@code text} is not one JSON value, with the offset
   */
  public static Object parse(String text) {
    Parser p = new Parser(text);
    Object value = p.value();
    p.skipSpace();
    if (p.pos != text.length()) {
      throw p.error("trailing text");
    }
    return value;
  }

  /** Parses a JSON object. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> parseObject(String text) {
    Object value = parse(text);
    if (!(value instanceof Map)) {
      throw new IllegalArgumentException("not a JSON object: " + text);
    }
    return (Map<String, Object>) value;
  }

  private static final class Parser {
    private final String s;
    private int pos;

    Parser(String s) {
      this.s = s;
    }

    Object value() {
      skipSpace();
      if (pos >= s.length()) {
        throw error("unexpected end");
      }
      char c = s.charAt(pos);
      switch (c) {
        case '{':
          return object();
        case '[':
          return array();
        case '"':
          return string();
        case 't':
          return literal("true", Boolean.TRUE);
        case 'f':
          return literal("false", Boolean.FALSE);
        case 'n':
          return literal("null", null);
        default:
          if (c == '-' || (c >= '0' && c <= '9')) {
            return number();
          }
          throw error("unexpected '" + c + "'");
      }
    }

    private Map<String, Object> object() {
      Map<String, Object> map = new LinkedHashMap<>();
      pos++;
      skipSpace();
      if (peek() == '}') {
        pos++;
        return map;
      }
      while (true) {
        skipSpace();
        if (peek() != '"') {
          throw error("expected a key");
        }
        String key = string();
        skipSpace();
        expect(':');
        map.put(key, value());
        skipSpace();
        if (peek() == ',') {
          pos++;
        } else {
          expect('}');
          return map;
        }
      }
    }

    private List<Object> array() {
      List<Object> list = new ArrayList<>();
      pos++;
      skipSpace();
      if (peek() == ']') {
        pos++;
        return list;
      }
      while (true) {
        list.add(value());
        skipSpace();
        if (peek() == ',') {
          pos++;
        } else {
          expect(']');
          return list;
        }
      }
    }

    private String string() {
      pos++;
      StringBuilder out = new StringBuilder();
      while (true) {
        if (pos >= s.length()) {
          throw error("unterminated string");
        }
        char c = s.charAt(pos++);
        if (c == '"') {
          return out.toString();
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        if (pos >= s.length()) {
          throw error("unterminated escape");
        }
        char e = s.charAt(pos++);
        switch (e) {
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'u' -> {
            if (pos + 4 > s.length()) {
              throw error("short \\u escape");
            }
            out.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
            pos += 4;
          }
          default -> out.append(e);
        }
      }
    }

    private Number number() {
      int start = pos;
      while (pos < s.length() && "+-0123456789.eE".indexOf(s.charAt(pos)) >= 0) {
        pos++;
      }
      String n = s.substring(start, pos);
      try {
        if (n.contains(".") || n.contains("e") || n.contains("E")) {
          return Double.parseDouble(n);
        }
        return Long.parseLong(n);
      } catch (NumberFormatException e) {
        throw error("bad number '" + n + "'");
      }
    }

    private Object literal(String word, Object value) {
      if (!s.startsWith(word, pos)) {
        throw error("unexpected text");
      }
      pos += word.length();
      return value;
    }

    private char peek() {
      return pos < s.length() ? s.charAt(pos) : '\0';
    }

    private void expect(char c) {
      if (peek() != c) {
        throw error("expected '" + c + "'");
      }
      pos++;
    }

    void skipSpace() {
      while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
        pos++;
      }
    }

    IllegalArgumentException error(String what) {
      return new IllegalArgumentException("bad JSON at offset " + pos + ": " + what);
    }
  }
}
