package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every Java snippet of README.md and docs/ is a region of a test of this module, which the build
 * compiles and runs against a real redis-server: a snippet that no longer compiles fails the
 * compilation, one that no longer works fails its test, and one edited in the page alone fails
 * here. See {@link Snippets} for the markers.
 *
 * <p>With {@code -Drelock.docs.refresh=true} ({@link Snippets#REFRESH_COMMAND}) the test first
 * rewrites every marked block from its region, then checks as usual.
 */
class DocSnippetsTest {

  private static final Path MODULE = Path.of("").toAbsolutePath();
  private static final Path ROOT = MODULE.getParent();
  private static final Path SOURCES = MODULE.resolve("src/test/java");

  @Test
  void everyJavaBlockOfTheReadmeAndTheGuides_isMarked_andMatchesItsRegionHere() throws IOException {
    Snippets.Problems problems = new Snippets.Problems();
    Map<String, Snippets.Region> regions = Snippets.regions(SOURCES, problems);
    List<Path> pages = Snippets.pages(ROOT);
    if (Boolean.getBoolean("relock.docs.refresh")) {
      for (Path page : pages) {
        List<String> lines = Snippets.read(page);
        List<String> fresh = Snippets.refreshed(ROOT.relativize(page), lines, regions);
        if (!fresh.equals(lines)) {
          Files.write(page, fresh, StandardCharsets.UTF_8);
          System.err.println("relock-docs: refreshed the snippets of " + ROOT.relativize(page));
        }
      }
    }

    Snippets.check(ROOT, pages, regions, problems);

    assertThat(problems.isEmpty())
        .withFailMessage("The docs' Java snippets and their sources disagree:%n%s%nEdit the region in"
            + " relock-docs/src/test/java and run%n  %s%nto copy it into the page.", problems,
            Snippets.REFRESH_COMMAND)
        .isTrue();
  }

  @Test
  void everyRegionHere_isShownOnSomePage() {
    Snippets.Problems problems = new Snippets.Problems();
    Map<String, Snippets.Region> regions = Snippets.regions(SOURCES, problems);
    List<String> shown = Snippets.check(ROOT, Snippets.pages(ROOT), regions, new Snippets.Problems());

    assertThat(regions.keySet())
        .as("regions no page shows (show each with '<!-- snippet: NAME -->' and a ```java block, or remove it)")
        .isSubsetOf(shown);
    assertThat(regions).as("the sources have snippet regions at all").isNotEmpty();
  }
}
