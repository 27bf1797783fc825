package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProcessCpuTest {

  private static String stat(long pid, String name, long parent, long utime, long stime, long cutime, long cstime) {
    return pid + " (" + name + ") S " + parent + " " + pid + " " + pid + " 0 -1 4194560 100 0 0 0 " + utime + " "
        + stime + " " + cutime + " " + cstime + " 20 0 1 0 100 1000 200";
  }

  @Test
  void parse_findsParentAndTicks_whateverTheName() {
    ProcessCpu.Stat s = ProcessCpu.Stat.parse(stat(812, "postgres: checkpointer (x) y", 700, 10, 5, 7, 3));
    assertThat(s).isEqualTo(new ProcessCpu.Stat(812, 700, 15, 10));
  }

  @Test
  void ticks_addTheRootAndEveryLiveDescendant_withWhatEachReaped_butNotOthers() {
    List<ProcessCpu.Stat> all = List.of(
        ProcessCpu.Stat.parse(stat(1, "init", 0, 1000, 1000, 0, 0)),
        ProcessCpu.Stat.parse(stat(700, "postgres", 1, 10, 5, 40, 20)),
        ProcessCpu.Stat.parse(stat(701, "postgres: walwriter", 700, 3, 2, 0, 0)),
        ProcessCpu.Stat.parse(stat(702, "postgres: client backend", 700, 30, 10, 0, 0)),
        ProcessCpu.Stat.parse(stat(800, "redis-server", 1, 99, 99, 0, 0)));
    assertThat(ProcessCpu.ticks(700, all)).isEqualTo(15 + 60 + 5 + 40);
    assertThatThrownBy(() -> ProcessCpu.ticks(999, all)).isInstanceOf(IllegalStateException.class);
  }
}
