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
 */
public final class LuaScript {
  private static final String FOLDER = "/io/relock/scripts/";
  private static final Pattern INCLUDE = Pattern.compile("(?m)^-- @include (\\S+)$");

  private final String name;
  private final String source;
  private final String sha1;

  private LuaScript(String name, String source) {
    this.name = name;
    this.source = source;
    this.sha1 = sha1Hex(source);
  }

  /** Reads {@code io/relock/scripts/<file>} and inlines its includes. */
  public static LuaScript load(String file) {
    return new LuaScript(file.replace(".lua", ""), assemble(file));
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
    return source;
  }

  /** SHA1 of {@link #source()} in lower-case hex, as {@code SCRIPT LOAD} returns it. */
  public String sha1() {
    return sha1;
  }

  @Override
  public String toString() {
    return name + ".lua";
  }
}
