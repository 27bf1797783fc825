package io.relock.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The snippets of the docs and where they come from.
 *
 * <p>A <em>region</em> is a stretch of a Java source under this module's {@code src/test/java}
 * between {@code // snippet:NAME} and {@code // end:NAME} (each alone on its line); regions may
 * nest, and the marker lines of inner regions are left out of the outer one's text. A
 * <em>block</em> is a fenced {@code ```java} block of a Markdown page; the nearest non-blank line
 * before it must be {@code <!-- snippet: NAME -->}, naming the region it shows. A block and its
 * region agree when they are equal line by line once blank lines are dropped and each line's runs
 * of spaces are made one (indentation included), so re-indenting a page never fails the build.
 */
final class Snippets {

  /** The command that rewrites every marked block from its region (see {@link DocSnippetsTest}). */
  static final String REFRESH_COMMAND = "./mvnw -B -ntp -pl relock-docs -am verify -Dtest=DocSnippetsTest"
      + " -Dsurefire.failIfNoSpecifiedTests=false -Drelock.docs.refresh=true";

  private static final Pattern START = Pattern.compile("^\\s*// snippet:([a-z0-9][a-z0-9-]*)\\s*$");
  private static final Pattern END = Pattern.compile("^\\s*// end:([a-z0-9][a-z0-9-]*)\\s*$");
  private static final Pattern MARKER = Pattern.compile("^\\s*<!-- snippet: ([a-z0-9][a-z0-9-]*) -->\\s*$");
  private static final Pattern FENCE = Pattern.compile("^(\\s*)```(.*)$");

  private Snippets() {}

  /** A region: its name, where it starts (file and line of its opening marker) and its text, dedented. */
  record Region(String name, String where, String text) {}

  /** A fenced block of a page: where it opens, its marker's name (null if none), its fence's indentation and text. */
  record Block(Path page, int line, String marker, String indent, int firstLine, int lastLine, String text) {}

  /** What is wrong: each entry one problem, naming the page or source and line. */
  static final class Problems {
    final List<String> all = new ArrayList<>();

    void add(String problem) {
      all.add(problem);
    }

    boolean isEmpty() {
      return all.isEmpty();
    }

    @Override
    public String toString() {
      return all.stream().map(p -> "  - " + p).collect(Collectors.joining("\n"));
    }
  }

  /** Every region of the {@code .java} files under {@code sourceRoot}, by name; mistakes in the markers go to {@code problems}. */
  static Map<String, Region> regions(Path sourceRoot, Problems problems) {
    Map<String, Region> regions = new LinkedHashMap<>();
    for (Path file : files(sourceRoot, ".java")) {
      String where = sourceRoot.relativize(file).toString();
      regionsOf(where, read(file), regions, problems);
    }
    return regions;
  }

  /** The regions of one source's lines, added to {@code regions}. */
  static void regionsOf(String where, List<String> lines, Map<String, Region> regions, Problems problems) {
    Map<String, Integer> open = new LinkedHashMap<>();
    java.util.Set<String> duplicates = new java.util.HashSet<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher start = START.matcher(lines.get(i));
      Matcher end = END.matcher(lines.get(i));
      if (start.matches()) {
        String name = start.group(1);
        if (open.containsKey(name) || regions.containsKey(name)) {
          problems.add(where + ":" + (i + 1) + ": snippet region '" + name + "' is defined twice"
              + (regions.containsKey(name) ? " (also " + regions.get(name).where() + ")" : ""));
          duplicates.add(name);
        } else {
          open.put(name, i);
        }
      } else if (end.matches()) {
        String name = end.group(1);
        if (duplicates.remove(name)) {
          continue;
        }
        Integer from = open.remove(name);
        if (from == null) {
          problems.add(where + ":" + (i + 1) + ": '// end:" + name + "' closes no open region");
          continue;
        }
        List<String> body = new ArrayList<>();
        for (String line : lines.subList(from + 1, i)) {
          if (!START.matcher(line).matches() && !END.matcher(line).matches()) {
            body.add(line);
          }
        }
        regions.put(name, new Region(name, where + ":" + (from + 1), dedent(body)));
      }
    }
    open.forEach((name, line) ->
        problems.add(where + ":" + (line + 1) + ": snippet region '" + name + "' has no '// end:" + name + "'"));
  }

  /** Every fenced {@code java} block of a page, with its marker; a marker with no Java block after it goes to {@code problems}. */
  static List<Block> javaBlocks(Path page, List<String> lines, Problems problems) {
    List<Block> blocks = new ArrayList<>();
    String pendingMarker = null;
    int pendingLine = 0;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      Matcher fence = FENCE.matcher(line);
      if (fence.matches()) {
        int close = closingFence(lines, i);
        if (fence.group(2).trim().equals("java")) {
          List<String> body = lines.subList(i + 1, close);
          blocks.add(new Block(page, i + 1, pendingMarker, fence.group(1), i + 1, close - 1, dedent(body)));
        } else if (pendingMarker != null) {
          problems.add(page + ":" + pendingLine + ": '<!-- snippet: " + pendingMarker
              + " -->' is followed by a ```" + fence.group(2).trim() + " block, not a ```java one");
        }
        pendingMarker = null;
        i = close;
        continue;
      }
      Matcher marker = MARKER.matcher(line);
      if (marker.matches()) {
        if (pendingMarker != null) {
          problems.add(page + ":" + pendingLine + ": '<!-- snippet: " + pendingMarker + " -->' has no ```java block after it");
        }
        pendingMarker = marker.group(1);
        pendingLine = i + 1;
      } else if (!line.isBlank() && pendingMarker != null) {
        problems.add(page + ":" + pendingLine + ": '<!-- snippet: " + pendingMarker + " -->' has no ```java block after it");
        pendingMarker = null;
      }
    }
    if (pendingMarker != null) {
      problems.add(page + ":" + pendingLine + ": '<!-- snippet: " + pendingMarker + " -->' has no ```java block after it");
    }
    return blocks;
  }

  /** Checks every Java block of {@code pages} against {@code regions}; returns the names of the regions shown. */
  static List<String> check(Path root, List<Path> pages, Map<String, Region> regions, Problems problems) {
    List<String> shown = new ArrayList<>();
    for (Path page : pages) {
      Path name = root.relativize(page);
      for (Block block : javaBlocks(name, read(page), problems)) {
        if (block.marker() == null) {
          problems.add(name + ":" + block.line() + ": a ```java block without '<!-- snippet: NAME -->' on the line"
              + " before it; every Java snippet must be a region of a test in relock-docs");
          continue;
        }
        Region region = regions.get(block.marker());
        if (region == null) {
          problems.add(name + ":" + block.line() + ": snippet '" + block.marker() + "' names no region of"
              + " relock-docs/src/test/java ('// snippet:" + block.marker() + "' ... '// end:" + block.marker() + "')");
          continue;
        }
        shown.add(region.name());
        String difference = difference(block.text(), region.text());
        if (difference != null) {
          problems.add(name + ":" + block.line() + ": snippet '" + block.marker() + "' differs from its region at "
              + region.where() + ": " + difference);
        }
      }
    }
    return shown;
  }

  /** Where two texts first differ once normalized, or null if they agree. */
  static String difference(String doc, String source) {
    List<String> d = normalized(doc);
    List<String> s = normalized(source);
    for (int i = 0; i < Math.max(d.size(), s.size()); i++) {
      String a = i < d.size() ? d.get(i) : "<end of block>";
      String b = i < s.size() ? s.get(i) : "<end of region>";
      if (!a.equals(b)) {
        return "line " + (i + 1) + " (blank lines not counted) is `" + a + "` in the page, `" + b + "` in the source";
      }
    }
    return null;
  }

  /** The text as compared: no blank lines, each line trimmed with its runs of whitespace made one space. */
  static List<String> normalized(String text) {
    return text.lines().map(l -> l.strip().replaceAll("\\s+", " ")).filter(l -> !l.isEmpty()).toList();
  }

  /** {@code lines} of a page with every marked Java block replaced by its region's text, at the fence's indentation. */
  static List<String> refreshed(Path page, List<String> lines, Map<String, Region> regions) {
    List<String> out = new ArrayList<>(lines);
    List<Block> blocks = javaBlocks(page, lines, new Problems());
    for (int b = blocks.size() - 1; b >= 0; b--) {
      Block block = blocks.get(b);
      Region region = block.marker() == null ? null : regions.get(block.marker());
      if (region == null) {
        continue;
      }
      List<String> body = region.text().lines().map(l -> l.isEmpty() ? "" : block.indent() + l).toList();
      out.subList(block.firstLine(), block.lastLine() + 1).clear();
      out.addAll(block.firstLine(), body);
    }
    return out;
  }

  /** README.md and every page under docs/, in a stable order. */
  static List<Path> pages(Path root) {
    List<Path> pages = new ArrayList<>();
    pages.add(root.resolve("README.md"));
    pages.addAll(files(root.resolve("docs"), ".md"));
    return pages;
  }

  static List<String> read(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Path> files(Path dir, String suffix) {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(p -> p.toString().endsWith(suffix) && Files.isRegularFile(p)).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The index of the fence that closes the one at {@code open} (the last line if none does). */
  private static int closingFence(List<String> lines, int open) {
    for (int j = open + 1; j < lines.size(); j++) {
      if (lines.get(j).strip().equals("```")) {
        return j;
      }
    }
    return lines.size();
  }

  /** The lines without their common indentation and without blank lines at either end, joined. */
  static String dedent(List<String> lines) {
    int from = 0;
    int to = lines.size();
    while (from < to && lines.get(from).isBlank()) {
      from++;
    }
    while (to > from && lines.get(to - 1).isBlank()) {
      to--;
    }
    List<String> kept = lines.subList(from, to);
    int indent = kept.stream().filter(l -> !l.isBlank())
        .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
    return kept.stream().map(l -> l.isBlank() ? "" : l.substring(indent).stripTrailing())
        .collect(Collectors.joining("\n")) + "\n";
  }
}
