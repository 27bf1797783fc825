package io.relock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class JvmProcessTest {

    private static final Duration GENEROUS = Duration.ofSeconds(30);

    @Test
    void output_collectsStdoutAndStderr_andAwaitLineFindsLines() throws Exception {
        try (JvmProcess child = JvmProcess.start(ChildMain.class, "one", "two")) {
            assertThat(child.awaitLine(line -> line.startsWith("args="), GENEROUS)).isEqualTo("args=one,two");
            assertThat(child.awaitLine(line -> line.equals("this went to stderr"), GENEROUS)).isNotNull();
            assertThat(child.awaitLine(line -> line.equals("tick 3"), GENEROUS)).isEqualTo("tick 3");

            List<String> output = child.output();
            assertThat(output).startsWith("hello from child").contains("args=one,two", "tick 1", "tick 2");
            assertThat(child.pid()).isNotEqualTo(ProcessHandle.current().pid());
            assertThat(child.isAlive()).isTrue();
            Poll.until("log file has the first line", () -> {
                try {
                    // a line, not the first: the JVM's own notices, which output() leaves out, come first there
                    return Files.readAllLines(child.logFile()).contains("hello from child");
                } catch (java.io.IOException e) {
                    return false;
                }
            });
        }
    }

    /**
     * With {@code JAVA_TOOL_OPTIONS} set (as on many CI machines) the JVM prints a notice before
     * {@code main}; it is not the child's output, so output() starts with the child's first line.
     */
    @Test
    void output_leavesOutTheLaunchersNoticeOfOptionsFromTheEnvironment() {
        try (JvmProcess child = JvmProcess.start(List.of(), java.util.Map.of("JAVA_TOOL_OPTIONS", "-Dsome.flag=env"),
                ChildMain.class, "exit=0")) {
            assertThat(child.waitFor(GENEROUS)).isZero();
            assertThat(child.output()).startsWith("hello from child").contains("some.flag=env")
                    .noneMatch(line -> line.contains("JAVA_TOOL_OPTIONS"));
        }
    }

    @Test
    void jvmArgs_reachTheChild() {
        try (JvmProcess child = JvmProcess.start(List.of("-Xmx64m", "-Dsome.flag=on"), ChildMain.class, "exit=0")) {
            assertThat(child.waitFor(GENEROUS)).isZero();
            assertThat(child.output()).contains("hello from child", "some.flag=on");
        }
    }

    @Test
    void aChild_startsWithTheClientCompilerAndTheSerialCollector_beforeTheCallersOptions() {
        try (JvmProcess child = JvmProcess.start(List.of("-XX:TieredStopAtLevel=4"), ChildMain.class, "exit=0")) {
            assertThat(child.waitFor(GENEROUS)).isZero();
            // JAVA_TOOL_OPTIONS, where set, come first in the list.
            assertThat(child.output()).anySatisfy(line -> assertThat(line).startsWith("jvm options=[")
                    .endsWith("-XX:TieredStopAtLevel=1, -XX:+UseSerialGC, -XX:TieredStopAtLevel=4]"));
        }
    }

    @Test
    void waitFor_returnsTheExitCode_withAllOutputCollected() {
        try (JvmProcess child = JvmProcess.start(ChildMain.class, "exit=7")) {
            assertThat(child.waitFor(GENEROUS)).isEqualTo(7);
            assertThat(child.isAlive()).isFalse();
            assertThat(child.output()).contains("hello from child", "args=exit=7", "this went to stderr");
        }
    }

    @Test
    void waitFor_onARunningChild_timesOutWithTheOutput() {
        try (JvmProcess child = JvmProcess.start(ChildMain.class)) {
            child.awaitLine(line -> line.equals("tick 1"), GENEROUS);
            assertThatThrownBy(() -> child.waitFor(Duration.ofMillis(200)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("still running")
                    .hasMessageContaining("hello from child");
        }
    }

    @Test
    void awaitLine_failsFast_whenTheChildExitsWithoutIt() {
        try (JvmProcess child = JvmProcess.start(ChildMain.class, "exit=3")) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> child.awaitLine(line -> line.equals("never printed"), GENEROUS))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("exit code 3")
                    .hasMessageContaining("hello from child");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
        }
    }

    @Test
    void awaitLine_timesOutWithTheOutput() {
        try (JvmProcess child = JvmProcess.start(ChildMain.class)) {
            // A JVM starts slowly on a busy machine: its first line first, then the short wait that must time out.
            child.awaitLine(line -> line.contains("hello from child"), Duration.ofSeconds(30));
            assertThatThrownBy(() -> child.awaitLine(line -> line.equals("never printed"), Duration.ofMillis(500)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("did not print within")
                    .hasMessageContaining("hello from child");
        }
    }

    @Test
    void kill9_killsTheChildAtOnce() {
        JvmProcess child = JvmProcess.start(ChildMain.class);
        child.awaitLine(line -> line.equals("tick 1"), GENEROUS);
        long pid = child.pid();

        child.kill9();

        assertThat(child.isAlive()).isFalse();
        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
        assertThat(child.waitFor(Duration.ofSeconds(5))).isEqualTo(137);
        child.close();
    }

    @Test
    void pause_stopsTheChild_andResumeLetsItContinue() {
        try (JvmProcess child = JvmProcess.start(ChildMain.class)) {
            child.awaitLine(line -> line.equals("tick 2"), GENEROUS);

            child.pause();

            assertThat(child.isAlive()).isTrue();
            int printedBeforePause = child.output().size();
            String nextTick = "tick " + (lastTick(child) + 1);
            assertThatThrownBy(() -> child.awaitLine(nextTick::equals, Duration.ofMillis(500)))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(child.output()).hasSize(printedBeforePause);

            child.resume();

            assertThat(child.awaitLine(nextTick::equals, GENEROUS)).isEqualTo(nextTick);
        }
    }

    @Test
    void close_killsALiveChild() {
        JvmProcess child = JvmProcess.start(ChildMain.class);
        child.awaitLine(line -> line.equals("tick 1"), GENEROUS);
        long pid = child.pid();

        child.close();
        child.close();

        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
    }

    private static long lastTick(JvmProcess child) {
        List<String> output = child.output();
        for (int i = output.size() - 1; i >= 0; i--) {
            if (output.get(i).startsWith("tick ")) {
                return Long.parseLong(output.get(i).substring("tick ".length()));
            }
        }
        return 0;
    }
}
