package io.relock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ScriptsTest {
  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private static final String FOLDER = "io/relock/scripts/";
  private static final Pattern INCLUDE = Pattern.compile("(?m)^-- @include (\\S+)$");
  private static final Pattern REQUIRES = Pattern.compile("(?m)^-- @requires (.+)$");
  /** What a fragment defines for the scripts that include it: local functions and upper-case locals. */
  private static final Pattern DEFINES = Pattern.compile("(?m)^local (?:function (\\w+)|([A-Z_][A-Z0-9_]*(?:, *[A-Z_][A-Z0-9_]*)*) *=)");

  @Test
  void everyScriptOnTheClassPath_isAFragmentSomeScriptIncludes_orOneOfScriptsAll() throws Exception {
    Set<String> files = scriptFiles();
    Set<String> included = included();
    assertThat(files).as("the folder holds the scripts").contains("acquire.lua", "release.lua");
    assertThat(files).as("every included fragment exists").containsAll(included);
    Set<String> entryPoints = new TreeSet<>(files);
    entryPoints.removeAll(included);
    assertThat(Scripts.ALL.stream().map(LuaScript::toString).toList())
        .as("scripts that no other script includes are the ones relock runs")
        .containsExactlyInAnyOrderElementsOf(entryPoints);
  }

  @Test
  void everyScriptsSha1_matchesWhatScriptLoadReturns(RedisServer server) throws Exception {
    List<String> checked = new ArrayList<>();
    Set<String> fragments = included();
    for (String file : scriptFiles()) {
      if (fragments.contains(file)) {
        continue;
      }
      LuaScript script = LuaScript.load(file);
      assertThat(server.execute("SCRIPT", "LOAD", script.source())).as(file).isEqualTo(script.sha1());
      checked.add(file);
    }
    assertThat(checked).hasSameSizeAs(Scripts.ALL);
  }

  @Test
  void includes_areInlined_andEveryScriptDocumentsItsKeysArgsAndReplies() {
    assertThat(Scripts.ACQUIRE.source()).doesNotContainPattern("(?m)^-- @include ").contains("local function grant_next");
    assertThat(Scripts.RELEASE.source()).doesNotContainPattern("(?m)^-- @include ").contains("local function grant_next");
    for (LuaScript script : Scripts.ALL) {
      assertThat(script.source()).as(script.name()).startsWith("-- " + script.name() + ".lua:")
          .contains("KEYS[").contains("Returns").doesNotContainPattern("(?m)^-- @include ");
    }
  }

  @Test
  void sha1_isLowerCaseHexOfTheText() {
    assertThat(LuaScript.sha1Hex("return 1")).isEqualTo("e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
  }

  @Test
  void everyFragment_requiresTheFragmentsWhoseNamesItUses() throws Exception {
    Set<String> fragments = included();
    Map<String, Set<String>> defines = new TreeMap<>();
    for (String fragment : fragments) {
      Set<String> names = new TreeSet<>();
      Matcher m = DEFINES.matcher(text(fragment));
      while (m.find()) {
        if (m.group(1) != null) {
          names.add(m.group(1));
        } else {
          for (String name : m.group(2).split(",")) {
            names.add(name.strip());
          }
        }
      }
      defines.put(fragment, names);
    }
    assertThat(defines.get("queue.lua")).as("what the check reads").contains("QUEUE", "WAITERS", "notify");
    for (String fragment : fragments) {
      String code = withoutComments(text(fragment));
      Set<String> closure = requiredClosure(fragment);
      for (String other : fragments) {
        if (other.equals(fragment)) {
          continue;
        }
        for (String name : defines.get(other)) {
          if (Pattern.compile("\\b" + name + "\\b").matcher(code).find()) {
            assertThat(closure).as(fragment + " uses " + name + " of " + other + ", so must require it ('-- @requires')")
                .contains(other);
          }
        }
      }
    }
  }

  @Test
  void assembly_inlinesWhatAFragmentRequiresFirst_eachOnce_andRefusesACircle() {
    Map<String, String> files = Map.of(
        "main.lua", "-- @include b.lua\n-- @include a.lua\nreturn b()\n",
        "a.lua", "local function a() return 1 end\n",
        "b.lua", "-- @requires a.lua\nlocal function b() return a() end\n");
    assertThat(LuaScript.assemble("main.lua", files::get))
        .isEqualTo("local function a() return 1 end\n-- @requires a.lua\nlocal function b() return a() end\n\n\nreturn b()\n");
    Map<String, String> circle = Map.of(
        "main.lua", "-- @include a.lua\n",
        "a.lua", "-- @requires b.lua\n",
        "b.lua", "-- @requires a.lua\n");
    assertThatThrownBy(() -> LuaScript.assemble("main.lua", circle::get)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("a.lua -> b.lua -> a.lua");
  }

  /** {@code fragment} and every fragment it requires, directly or not. */
  private static Set<String> requiredClosure(String fragment) throws IOException {
    Set<String> closure = new TreeSet<>();
    List<String> todo = new ArrayList<>(List.of(fragment));
    while (!todo.isEmpty()) {
      String next = todo.remove(todo.size() - 1);
      if (closure.add(next)) {
        Matcher m = REQUIRES.matcher(text(next));
        if (m.find()) {
          todo.addAll(List.of(m.group(1).strip().split("\\s+")));
        }
      }
    }
    return closure;
  }

  private static String withoutComments(String lua) {
    return lua.lines().map(line -> line.replaceFirst("--.*$", "")).reduce("", (a, b) -> a + b + "\n");
  }

  /** The fragments some script includes or some fragment requires. */
  private static Set<String> included() throws IOException, URISyntaxException {
    Set<String> included = new TreeSet<>();
    for (String file : scriptFiles()) {
      String text = text(file);
      Matcher m = INCLUDE.matcher(text);
      while (m.find()) {
        included.add(m.group(1));
      }
      Matcher r = REQUIRES.matcher(text);
      if (r.find()) {
        included.addAll(List.of(r.group(1).strip().split("\\s+")));
      }
    }
    return included;
  }

  /** Every {@code .lua} file in the scripts folder, read from the class path (a folder or a jar). */
  static Set<String> scriptFiles() throws IOException, URISyntaxException {
    URL folder = LuaScript.class.getClassLoader().getResource(FOLDER);
    assertThat(folder).as("the scripts folder on the class path").isNotNull();
    Set<String> files = new TreeSet<>();
    if ("jar".equals(folder.getProtocol())) {
      JarURLConnection connection = (JarURLConnection) folder.openConnection();
      try (JarFile jar = connection.getJarFile()) {
        for (JarEntry entry : Collections.list(jar.entries())) {
          String name = entry.getName();
          if (name.startsWith(FOLDER) && name.endsWith(".lua") && name.indexOf('/', FOLDER.length()) < 0) {
            files.add(name.substring(FOLDER.length()));
          }
        }
      }
    } else {
      try (Stream<Path> listed = Files.list(Path.of(folder.toURI()))) {
        listed.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".lua")).forEach(files::add);
      }
    }
    return files;
  }

  private static String text(String file) throws IOException {
    try (InputStream in = LuaScript.class.getClassLoader().getResourceAsStream(FOLDER + file)) {
      assertThat(in).as(file).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
