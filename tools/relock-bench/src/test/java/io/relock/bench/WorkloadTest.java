package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class WorkloadTest {

  @Test
  void theIssueRows_parseToTheirMixAndPermits_andBackToTheirNames() {
    assertThat(Workload.parse("rw-read-heavy")).isEqualTo(Workload.readWrite(90));
    assertThat(Workload.parse(" RW-Write-Heavy ")).isEqualTo(Workload.readWrite(10));
    assertThat(Workload.parse("semaphore-5")).isEqualTo(Workload.semaphore(5));
    assertThat(Workload.parse("rw-50")).isEqualTo(Workload.readWrite(50));
    for (String name : List.of("rw-read-heavy", "rw-write-heavy", "semaphore-5", "rw-50", "rw-0", "semaphore-1")) {
      assertThat(Workload.parse(name).id()).isEqualTo(name);
    }
    assertThat(Workload.parse("rw-90").id()).isEqualTo("rw-read-heavy");
    assertThat(Workload.parseAll(Workload.FAMILY_ROWS)).containsExactly(Workload.readWrite(90), Workload.readWrite(10),
        Workload.semaphore(5));
  }

  @Test
  void unknownOrImpossibleRows_areRefusedWithTheKnownForms() {
    assertThatThrownBy(() -> Workload.parse("mutex")).hasMessageContaining("unknown family row 'mutex'")
        .hasMessageContaining("semaphore-<N>");
    assertThatThrownBy(() -> Workload.parse("rw-lots")).hasMessageContaining("unknown family row");
    assertThatThrownBy(() -> Workload.parse("rw-101")).hasMessageContaining("0 to 100");
    assertThatThrownBy(() -> Workload.parse("semaphore-0")).hasMessageContaining("at least 1 permit");
    assertThatThrownBy(() -> Workload.parseAll(List.of("rw-90", "rw-read-heavy"))).hasMessageContaining("named twice");
    assertThatThrownBy(() -> new Workload(Workload.Kind.SEMAPHORE, 10, 5)).hasMessageContaining("only a read-write");
  }

  @Test
  void theMix_drawsReadsInTheRowsProportion_andNeverForOtherKinds() {
    SplittableRandom random = new SplittableRandom(42);
    int reads = 0;
    int draws = 100_000;
    for (int i = 0; i < draws; i++) {
      reads += Workload.readWrite(90).nextIsRead(random) ? 1 : 0;
    }
    assertThat(reads / (double) draws).isBetween(0.89, 0.91);
    reads = 0;
    for (int i = 0; i < draws; i++) {
      reads += Workload.readWrite(10).nextIsRead(random) ? 1 : 0;
    }
    assertThat(reads / (double) draws).isBetween(0.09, 0.11);
    for (int i = 0; i < 1000; i++) {
      assertThat(Workload.readWrite(0).nextIsRead(random)).isFalse();
      assertThat(Workload.readWrite(100).nextIsRead(random)).isTrue();
      assertThat(Workload.semaphore(5).nextIsRead(random)).isFalse();
      assertThat(Workload.EXCLUSIVE.nextIsRead(random)).isFalse();
    }
  }

  @Test
  void aWorkload_goesToTheWorkerAndBack_asJson() {
    for (Workload w : List.of(Workload.readWrite(90), Workload.semaphore(5), Workload.EXCLUSIVE)) {
      assertThat(Workload.fromJson(BenchJson.readObject(BenchJson.line(w.toJson())))).isEqualTo(w);
    }
    assertThat(Workload.fromJson(null)).isEqualTo(Workload.EXCLUSIVE);
  }
}
