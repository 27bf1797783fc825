package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checker itself, on pages and sources of its own: what it accepts and what it reports. */
class SnippetsTest {

  private static final List<String> SOURCE = List.of(
      "class Example {",
      "  void run() {",
      "    // snippet:outer",
      "    int a = 1;",
      "    // snippet:inner",
      "    int b = a + 1;",
      "    // end:inner",
      "    System.out.println(a + b);",
      "    // end:outer",
      "  }",
      "}");

  @TempDir Path root;

  private Map<String, Snippets.Region> regions(Snippets.Problems problems) {
    Map<String, Snippets.Region> regions = new LinkedHashMap<>();
    Snippets.regionsOf("Example.java", SOURCE, regions, problems);
    return regions;
  }

  private Snippets.Problems check(String... page) throws IOException {
    Path readme = root.resolve("README.md");
    Files.write(readme, List.of(page), StandardCharsets.UTF_8);
    Snippets.Problems problems = new Snippets.Problems();
    Snippets.check(root, List.of(readme), regions(problems), problems);
    return problems;
  }

  @Test
  void regions_nest_andLeaveTheInnerMarkersOut_dedented() {
    Snippets.Problems problems = new Snippets.Problems();
    Map<String, Snippets.Region> regions = regions(problems);

    assertThat(problems.isEmpty()).isTrue();
    assertThat(regions.get("outer").text()).isEqualTo("int a = 1;\nint b = a + 1;\nSystem.out.println(a + b);\n");
    assertThat(regions.get("inner").text()).isEqualTo("int b = a + 1;\n");
    assertThat(regions.get("inner").where()).isEqualTo("Example.java:5");
  }

  @Test
  void aMarkedBlockEqualToItsRegion_passes_whateverItsIndentationAndBlankLines() throws IOException {
    Snippets.Problems problems = check(
        "Text.", "", "<!-- snippet: outer -->", "```java", "  int a = 1;", "", "int  b = a + 1;",
        "System.out.println(a + b);", "```", "", "- a list item:", "  <!-- snippet: inner -->", "  ```java",
        "  int b = a + 1;", "  ```");

    assertThat(problems.isEmpty()).as("%s", problems).isTrue();
  }

  @Test
  void aBlockEditedInThePageAlone_isReported_withTheLineThatDiffers() throws IOException {
    Snippets.Problems problems = check("<!-- snippet: inner -->", "```java", "int b = a + 2;", "```");

    assertThat(problems.all).singleElement().asString()
        .contains("README.md:2", "snippet 'inner' differs from its region at Example.java:5",
            "`int b = a + 2;` in the page, `int b = a + 1;` in the source");
  }

  @Test
  void aBlockWithALineMoreOrLess_isReported() throws IOException {
    assertThat(check("<!-- snippet: inner -->", "```java", "int b = a + 1;", "b++;", "```").all)
        .singleElement().asString().contains("`b++;` in the page, `<end of region>` in the source");
    assertThat(check("<!-- snippet: outer -->", "```java", "int a = 1;", "```").all)
        .singleElement().asString().contains("`<end of block>` in the page");
  }

  @Test
  void aJavaBlockWithoutAMarker_isReported_otherLanguagesAreNot() throws IOException {
    Snippets.Problems problems = check("Intro.", "", "```java", "int c = 3;", "```", "", "```sh", "ls", "```",
        "```xml", "<a/>", "```");

    assertThat(problems.all).singleElement().asString()
        .contains("README.md:3: a ```java block without '<!-- snippet: NAME -->'");
  }

  @Test
  void aMarkerNamingNoRegion_orFollowedByNoJavaBlock_isReported() throws IOException {
    assertThat(check("<!-- snippet: nowhere -->", "```java", "int a = 1;", "```").all)
        .singleElement().asString().contains("snippet 'nowhere' names no region");
    assertThat(check("<!-- snippet: inner -->", "Some text.", "```java", "int b = a + 1;", "```").all)
        .anySatisfy(p -> assertThat(p).contains("README.md:1", "has no ```java block after it"))
        .anySatisfy(p -> assertThat(p).contains("README.md:3: a ```java block without"));
    assertThat(check("<!-- snippet: inner -->", "```sh", "ls", "```").all)
        .singleElement().asString().contains("is followed by a ```sh block, not a ```java one");
  }

  @Test
  void aRegionDefinedTwice_orLeftOpen_orClosedWithoutOpening_isReported() {
    Snippets.Problems problems = new Snippets.Problems();
    Map<String, Snippets.Region> regions = regions(problems);
    Snippets.regionsOf("Other.java",
        List.of("// snippet:inner", "x();", "// end:inner", "// snippet:open", "// end:never"), regions, problems);

    assertThat(problems.all).satisfiesExactlyInAnyOrder(
        p -> assertThat(p).contains("Other.java:1: snippet region 'inner' is defined twice (also Example.java:5)"),
        p -> assertThat(p).contains("Other.java:5: '// end:never' closes no open region"),
        p -> assertThat(p).contains("Other.java:4: snippet region 'open' has no '// end:open'"));
  }

  @Test
  void refresh_copiesEachRegionIntoItsBlock_atTheFencesIndentation_andLeavesTheRestAlone() {
    List<String> page = List.of("# Page", "<!-- snippet: outer -->", "```java", "old();", "```", "- item",
        "  <!-- snippet: inner -->", "  ```java", "  old();", "  more();", "  ```", "```java", "unmarked();", "```");

    List<String> fresh = Snippets.refreshed(Path.of("README.md"), page, regions(new Snippets.Problems()));

    assertThat(fresh).containsExactly("# Page", "<!-- snippet: outer -->", "```java", "int a = 1;",
        "int b = a + 1;", "System.out.println(a + b);", "```", "- item", "  <!-- snippet: inner -->", "  ```java",
        "  int b = a + 1;", "  ```", "```java", "unmarked();", "```");
  }
}
