package io.relock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** docs/leader-election.md shows the example that LeaderContract compiles and runs, word for word. */
class LeaderGuideTest {

  @Test
  void theGuidesCode_isTheCompiledExample() throws Exception {
    String guide = Files.readString(Path.of("..", "docs", "leader-election.md"));
    int start = guide.indexOf("```java\n");
    assertThat(start).as("the guide's java block").isNotNegative();
    String shown = guide.substring(start + "```java\n".length(), guide.indexOf("```", start + 7));

    List<String> source = Files.readAllLines(
        Path.of("src", "test", "java", "io", "relock", "contract", "LeaderElectionExample.java"));
    int from = source.indexOf("  // guide:start");
    int to = source.indexOf("  // guide:end");
    assertThat(from).as("the example's guide:start marker").isNotNegative();
    assertThat(to).as("the example's guide:end marker").isGreaterThan(from);
    String compiled = source.subList(from + 1, to).stream()
        .map(line -> line.startsWith("  ") ? line.substring(2) : line)
        .collect(Collectors.joining("\n", "", "\n"));

    assertThat(shown).isEqualTo(compiled);
  }
}
