package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The key table of docs/internals.md against the sources: every key suffix and channel that a Lua
 * script or relock-core's Java builds is a row of the table, every row's key is still built
 * somewhere, and each row's "named in" column lists exactly the files that build it.
 */
class KeyTableTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final Path CORE = ROOT.resolve("relock-core/src/main");

  /** In a script: {@code KEYS[1] .. ':fence'}, {@code key .. ':q'}. */
  private static final Pattern LUA_SUFFIX = Pattern.compile("\\.\\.\\s*'(:[a-z]+:?)'");
  /** In Java: {@code keys.lock() + ":n"}, {@code lock + ":q"}, {@code keys.get(0) + ":q"}. */
  private static final Pattern JAVA_SUFFIX = Pattern.compile("(?:lock\\(\\)|\\block|get\\(0\\))\\s*\\+\\s*\"(:[a-z]+:?)\"");
  /** In Java, names under the key prefix alone: {@code keyPrefix() + "client:"}. */
  private static final Pattern JAVA_PREFIXED = Pattern.compile("keyPrefix\\(\\)\\s*\\+\\s*\"([a-z:]+)\"");

  @Test
  void everyKeyAndChannelTheSourcesBuild_isInTheTable_namedInExactlyTheFilesThatBuildIt() {
    Map<String, Set<String>> built = builtBySources();
    Map<String, Set<String>> documented = documented();
    assertThat(built).as("what the scan finds").containsKeys(":fence", ":q", "client:");
    assertThat(documented.keySet()).as("keys and channels in the table (left) and in the sources (right)")
        .containsExactlyInAnyOrderElementsOf(built.keySet());
    for (Map.Entry<String, Set<String>> key : built.entrySet()) {
      assertThat(documented.get(key.getKey())).as("the files the table says build '" + key.getKey() + "'")
          .containsExactlyInAnyOrderElementsOf(key.getValue());
    }
  }

  /** Suffix (or name under the prefix) to the files that build it, comments left out. */
  private static Map<String, Set<String>> builtBySources() {
    Map<String, Set<String>> built = new TreeMap<>();
    for (Path script : files(CORE.resolve("resources/io/relock/scripts"), ".lua")) {
      String code = read(script).replaceAll("(?m)--.*$", "");
      collect(LUA_SUFFIX, code, script, built);
    }
    for (Path source : files(CORE.resolve("java"), ".java")) {
      String code = read(source).replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("(?m)//.*$", "");
      collect(JAVA_SUFFIX, code, source, built);
      collect(JAVA_PREFIXED, code, source, built);
    }
    return built;
  }

  private static void collect(Pattern pattern, String code, Path file, Map<String, Set<String>> into) {
    Matcher m = pattern.matcher(code);
    while (m.find()) {
      into.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(file.getFileName().toString());
    }
  }

  /**
   * The table's rows as suffix to the files of its "named in" column; a key named in several rows
   * (the same suffix on a Redlock master) gets the union. The lock's own key, {@code relock:{n}},
   * is left out: it is the name the others are built from.
   */
  private static Map<String, Set<String>> documented() {
    List<String> lines = read(ROOT.resolve("docs/internals.md")).lines().toList();
    int header = lines.indexOf("| key or channel | type | kind | holds | written by | expires | named in |");
    assertThat(header).as("the key table's header in docs/internals.md").isNotNegative();
    Map<String, Set<String>> rows = new TreeMap<>();
    Pattern code = Pattern.compile("`([^`]+)`");
    for (String line : lines.subList(header + 2, lines.size())) {
      if (!line.startsWith("|")) {
        break;
      }
      String[] cells = line.split("\\|");
      Set<String> namedIn = new TreeSet<>();
      Matcher files = code.matcher(cells[cells.length - 1]);
      while (files.find()) {
        namedIn.add(files.group(1));
      }
      Matcher keys = code.matcher(cells[1]);
      while (keys.find()) {
        String key = keys.group(1);
        assertThat(key).as("a key in the table").startsWith("relock:");
        String rest = key.substring("relock:".length());
        String suffix = rest.startsWith("{n}") ? rest.substring("{n}".length()) : rest;
        int placeholder = suffix.indexOf('<');
        suffix = placeholder < 0 ? suffix : suffix.substring(0, placeholder);
        if (!suffix.isEmpty()) {
          rows.computeIfAbsent(suffix, k -> new TreeSet<>()).addAll(namedIn);
        }
      }
    }
    return rows;
  }

  private static List<Path> files(Path dir, String suffix) {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(p -> p.toString().endsWith(suffix)).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
