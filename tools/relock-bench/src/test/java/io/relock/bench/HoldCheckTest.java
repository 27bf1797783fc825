package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.bench.HoldCheck.Mode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HoldCheckTest {

  private static HoldCheck check(int permits) {
    return new HoldCheck(ByteBuffer.allocateDirect(HoldCheck.SIZE), permits);
  }

  @Test
  void readersTogether_andWritersOneAfterAnother_areFine() {
    HoldCheck c = check(1);
    assertThat(c.enter(Mode.READ)).isTrue();
    assertThat(c.enter(Mode.READ)).isTrue();
    assertThat(c.enter(Mode.READ)).isTrue();
    c.exit(Mode.READ);
    c.exit(Mode.READ);
    c.exit(Mode.READ);
    assertThat(c.enter(Mode.WRITE)).isTrue();
    c.exit(Mode.WRITE);
    assertThat(c.enter(Mode.WRITE)).isTrue();
    c.exit(Mode.WRITE);
    assertThat(c.violations()).isZero();
    assertThat(c.mostReaders()).isEqualTo(3);
    assertThat(c.holding()).isZero();
    assertThat(c.firstViolation()).isEmpty();
  }

  @Test
  void aWriterBesideAReader_orAnotherWriter_isAViolation() {
    HoldCheck c = check(1);
    c.enter(Mode.READ);
    assertThat(c.enter(Mode.WRITE)).isFalse();
    assertThat(c.firstViolation()).contains("write hold began while 0 other write and 1 read");
    c.exit(Mode.WRITE);
    c.exit(Mode.READ);

    c.enter(Mode.WRITE);
    assertThat(c.enter(Mode.WRITE)).isFalse();
    c.exit(Mode.WRITE);
    assertThat(c.enter(Mode.READ)).isFalse();
    assertThat(c.violations()).isEqualTo(3);
    assertThat(c.firstViolation()).as("the first one is kept").contains("1 read");
  }

  @Test
  void morePermitHoldersThanPermits_isAViolation_andTheMostIsKept() {
    HoldCheck c = check(5);
    for (int i = 0; i < 5; i++) {
      assertThat(c.enter(Mode.PERMIT)).isTrue();
    }
    assertThat(c.enter(Mode.PERMIT)).isFalse();
    assertThat(c.firstViolation()).isEqualTo("6 permit holders at once, with 5 permits");
    for (int i = 0; i < 6; i++) {
      c.exit(Mode.PERMIT);
    }
    assertThat(c.enter(Mode.PERMIT)).isTrue();
    assertThat(c.mostHolders()).isEqualTo(6);
    assertThat(c.violations()).isEqualTo(1);
  }

  @Test
  void twoMappingsOfOneFile_seeEachOthersHolds_asWorkerProcessesDo(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("check");
    HoldCheck.reset(file);
    HoldCheck first = HoldCheck.map(file, 1);
    HoldCheck second = HoldCheck.map(file, 1);
    assertThat(first.enter(Mode.READ)).isTrue();
    assertThat(second.enter(Mode.WRITE)).isFalse();
    assertThat(first.violations()).isEqualTo(1);
    assertThat(second.firstViolation()).contains("1 read");
    assertThat(first.firstViolation()).as("each process keeps the first it saw itself").isEmpty();
    HoldCheck.reset(file);
    assertThat(HoldCheck.map(file, 1).violations()).as("reset before each run").isZero();
  }

  @Test
  void threadsThatOverlapForReal_areCaught() throws InterruptedException {
    // Writers with no lock at all: each holds for a while, so they overlap on any machine.
    HoldCheck c = check(1);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Thread t = new Thread(() -> {
        for (int n = 0; n < 20; n++) {
          c.enter(Mode.WRITE);
          try {
            Thread.sleep(2);
          } catch (InterruptedException e) {
            return;
          }
          c.exit(Mode.WRITE);
        }
      });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    assertThat(c.violations()).isPositive();
    assertThat(c.holding()).isZero();
  }

  @Test
  void aHeapBuffer_isRefused_sinceProcessesCannotShareIt() {
    assertThatThrownBy(() -> new HoldCheck(ByteBuffer.allocate(HoldCheck.SIZE), 1)).hasMessageContaining("direct");
  }
}
