package io.relock.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Lua script read from the resource folder {@code io/relock/scripts/}. A line {@code -- @include
 * other.lua} is replaced by that file's text, so shared functions are written once. Scripts are
 * called by SHA1 and loaded on NOSCRIPT.
 *
 * <p>The text is read, and its SHA1 computed, when first asked for: a new client reads only the
 * scripts it runs, not the whole family's, before it holds its first lock.
 */
public final class LuaScript {
  private static final String FOLDER = "/io/relock/scripts/";
  private static final Pattern INCLUDE = Pattern.compile("(?m)^-- @include (\\S+)$");

  private final String file;
  private final String name;
  /** The assembled text and its SHA1, once read; two threads may both read it, to the same result. */
  private volatile Text text;

  private record Text(String source, String sha1) {}

  private LuaScript(String file) {
    this.file = file;
    this.name = file.replace(".lua", "");
  }

  /** Names {@code io/relock/scripts/<file>}, read (and its includes inlined) on first use. */
  public static LuaScript load(String file) {
    return new LuaScript(file);
  }

  private Text text() {
    Text t = text;
    if (t == null) {
      String source = assemble(file);
      t = new Text(source, sha1Hex(source));
      text = t;
    }
    return t;
  }

  private static String assemble(String file) {
    String text = read(file);
    Matcher m = INCLUDE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(read(m.group(1))));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static String read(String file) {
    try (InputStream in = LuaScript.class.getResourceAsStream(FOLDER + file)) {
      if (in == null) {
        throw new IllegalStateException("missing script resource " + FOLDER + file);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("could not read script " + file, e);
    }
  }

  static String sha1Hex(String text) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-1");
      return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required by every JRE", e);
    }
  }

  /** Short name, such as {@code acquire}. */
  public String name() {
    return name;
  }

  /** The script text Redis runs, with includes inlined. */
  public String source() {
    return text().source();
  }

  /** SHA1 of {@link #source()} in lower-case hex, as {@code SCRIPT LOAD} returns it. */
  public String sha1() {
    return text().sha1();
  }

  @Override
  public String toString() {
    return name + ".lua";
  }
}
