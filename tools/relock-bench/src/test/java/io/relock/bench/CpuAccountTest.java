package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class CpuAccountTest {

  private static String procStat(long user, long system, long idle) {
    return "cpu  " + user + " 0 " + system + " " + idle + " 5 0 1 0 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 1\n";
  }

  private static String selfStat(long utime, long stime, long cutime, long cstime) {
    return "4242 (java (odd) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 " + utime + " " + stime + " " + cutime
        + " " + cstime + " 20 0 30 0 100 1000 200";
  }

  @Test
  void parse_readsBusyIdleAndOwnTicks_withParenthesesInTheName() {
    CpuAccount a = CpuAccount.parse(procStat(100, 50, 1000), selfStat(10, 5, 7, 3));
    assertThat(a.busyTicks()).isEqualTo(100 + 50 + 1);
    assertThat(a.totalTicks()).isEqualTo(151 + 1000 + 5);
    assertThat(a.ownTicks()).isEqualTo(25);
  }

  @Test
  void othersShare_isBusyTimeNotSpentByTheBenchOrItsChildren() {
    CpuAccount before = CpuAccount.parse(procStat(100, 0, 1000), selfStat(0, 0, 0, 0));
    // 400 ticks passed: 300 busy, of which the bench and its reaped children took 240.
    CpuAccount after = CpuAccount.parse(procStat(350, 50, 1100), selfStat(100, 20, 100, 20));
    assertThat(after.othersShareSince(before)).isCloseTo(60.0 / 400, within(1e-12));
    // Never negative, even if children's time arrives late.
    CpuAccount quiet = CpuAccount.parse(procStat(110, 0, 1390), selfStat(50, 0, 0, 0));
    assertThat(quiet.othersShareSince(before)).isZero();
  }

  @Test
  void othersShare_countsADetachedServerAsTheBenchsOwn() {
    CpuAccount before = CpuAccount.parse(procStat(100, 0, 1000), selfStat(0, 0, 0, 0));
    CpuAccount after = CpuAccount.parse(procStat(350, 50, 1100), selfStat(100, 20, 100, 20));
    // The 60 ticks others had were a PostgreSQL server pg_ctl detached from the bench.
    assertThat(after.othersShareSince(before, 60)).isZero();
    assertThat(after.othersShareSince(before, 20)).isCloseTo(40.0 / 400, within(1e-12));
  }

  @Test
  void busyShare_isWhatTheCoresDid_whoeverDidIt() {
    CpuAccount before = CpuAccount.parse(procStat(100, 0, 1000), selfStat(0, 0, 0, 0));
    CpuAccount after = CpuAccount.parse(procStat(350, 50, 1100), selfStat(100, 20, 100, 20));
    assertThat(after.busyShareSince(before)).isCloseTo(300.0 / 400, within(1e-12));
    assertThat(before.busyShareSince(before)).isNaN();
  }
}
