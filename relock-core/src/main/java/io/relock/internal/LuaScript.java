package io.relock.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Lua script read from the resource folder {@code io/relock/scripts/}. A line {@code -- @include
 * fragment.lua} is replaced by that fragment's text, so shared functions are written once. A
 * fragment names the fragments it needs on a line {@code -- @requires a.lua b.lua}; they are
 * inlined before it, recursively, and each fragment once per script, so a script includes what it
 * uses and the order follows from the fragments' own declarations. Scripts are called by SHA1 and
 * loaded on NOSCRIPT.
 *
 * <p>The text is read, and its SHA1 computed, when first asked for: a new client reads only the
 * scripts it runs, not the whole family's, before it holds its first lock.
 */
public final class LuaScript {
  private static final String FOLDER = "/io/relock/scripts/";
  private static final Pattern INCLUDE = Pattern.compile("(?m)^-- @include (\\S+)$");
  private static final Pattern REQUIRES = Pattern.compile("(?m)^-- @requires (.+)$");

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
    return assemble(file, LuaScript::read);
  }

  /** {@code file}'s text with its includes inlined, reading each file with {@code reader}. */
  static String assemble(String file, Function<String, String> reader) {
    Set<String> inlined = new HashSet<>();
    Deque<String> inlining = new ArrayDeque<>();
    Matcher m = INCLUDE.matcher(reader.apply(file));
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(fragment(m.group(1), reader, inlined, inlining)));
    }
    m.appendTail(out);
    return out.toString();
  }

  /**
   * A fragment's text, after the text of what it requires that this script has not inlined yet;
   * "" if the script has it already.
   */
  private static String fragment(String file, Function<String, String> reader, Set<String> inlined,
      Deque<String> inlining) {
    if (inlined.contains(file)) {
      return "";
    }
    if (inlining.contains(file)) {
      List<String> circle = new ArrayList<>(inlining);
      Collections.reverse(circle); // the stack's head is the latest
      throw new IllegalStateException("script fragments require each other in a circle: "
          + String.join(" -> ", circle) + " -> " + file);
    }
    String text = reader.apply(file);
    if (INCLUDE.matcher(text).find()) {
      throw new IllegalStateException(file + " is a fragment: it names what it needs with '-- @requires', not '-- @include'");
    }
    inlining.push(file);
    StringBuilder out = new StringBuilder();
    Matcher requires = REQUIRES.matcher(text);
    if (requires.find()) {
      for (String needed : requires.group(1).trim().split("\\s+")) {
        out.append(fragment(needed, reader, inlined, inlining));
      }
    }
    inlining.pop();
    inlined.add(file);
    return out.append(text).toString();
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
