package io.relock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What happens to redis-servers whose JVM goes away without closing them. */
class ProcessHygieneTest {

    private static final Pattern REPORT = Pattern.compile("redis pid=(\\d+) dir=(.+)");
    private static final Duration GENEROUS = Duration.ofSeconds(30);

    @Test
    void jvmExit_killsItsServersThroughTheShutdownHook() {
        try (JvmProcess holder = JvmProcess.start(RedisHolderMain.class, "exit")) {
            Matcher report = awaitReport(holder);
            long redisPid = Long.parseLong(report.group(1));

            assertThat(holder.waitFor(GENEROUS)).isZero();

            Poll.until("redis-server " + redisPid + " is dead", () -> Poll.isDead(redisPid));
            assertThat(Path.of(report.group(2))).doesNotExist();
        }
    }

    @Test
    void killedJvm_leavesAServerThatTheNextSweepKills() {
        long redisPid;
        Path dir;
        try (JvmProcess holder = JvmProcess.start(RedisHolderMain.class)) {
            Matcher report = awaitReport(holder);
            redisPid = Long.parseLong(report.group(1));
            dir = Path.of(report.group(2));

            ProcessJanitor.sweepLeftovers();
            assertThat(Poll.isDead(redisPid)).as("server of a live JVM survives a sweep").isFalse();

            holder.kill9();
        }
        assertThat(Poll.isDead(redisPid)).as("no hook runs on kill -9: the server is orphaned").isFalse();

        ProcessJanitor.sweepLeftovers();

        Poll.until("orphaned redis-server " + redisPid + " is dead", () -> Poll.isDead(redisPid));
        assertThat(dir).doesNotExist();
        assertThat(ProcessJanitor.PID_DIR).isDirectoryNotContaining(
                file -> file.getFileName().toString().endsWith("-" + redisPid + ".pid"));
    }

    private static Matcher awaitReport(JvmProcess holder) {
        Matcher matcher = REPORT.matcher(holder.awaitLine(line -> REPORT.matcher(line).matches(), GENEROUS));
        assertThat(matcher.matches()).isTrue();
        return matcher;
    }
}
