package io.relock.demo.store;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * One of the demo's Lua scripts: read from the class path once, called by SHA1. A server that does
 * not know the script (first call, or after a restart) gets it loaded and the call is repeated.
 */
public final class LuaScript {

  private final String name;
  private final String source;
  private final String sha1;

  private LuaScript(String name, String source) {
    this.name = name;
    this.source = source;
    this.sha1 = sha1Hex(source);
  }

  /** Loads {@code name} from this package's resources. */
  static LuaScript load(String name) {
    return load(LuaScript.class, name);
  }

  /** Loads {@code name} from the resources of {@code owner}'s package. */
  public static LuaScript load(Class<?> owner, String name) {
    try (InputStream in = owner.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("script resource missing: " + name);
      }
      return new LuaScript(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read script " + name, e);
    }
  }

  String name() {
    return name;
  }

  String sha1() {
    return sha1;
  }

  /** Runs the script; it must return an array, given back as a list. */
  public List<Object> run(RedisCommands<String, String> redis, String[] keys, String... args) {
    try {
      return redis.evalsha(sha1, ScriptOutputType.MULTI, keys, args);
    } catch (RedisNoScriptException e) {
      redis.scriptLoad(source);
      return redis.evalsha(sha1, ScriptOutputType.MULTI, keys, args);
    }
  }

  /** Runs a script that returns one value (a string or an integer). */
  public Object runValue(RedisCommands<String, String> redis, String[] keys, String... args) {
    try {
      return redis.evalsha(sha1, ScriptOutputType.VALUE, keys, args);
    } catch (RedisNoScriptException e) {
      redis.scriptLoad(source);
      return redis.evalsha(sha1, ScriptOutputType.VALUE, keys, args);
    }
  }

  private static String sha1Hex(String text) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-1");
      return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required of every JVM", e);
    }
  }
}
