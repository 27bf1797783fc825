package io.relock.torture;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The checks of the lock family's workloads on hand-written histories: a read-write lock's readers
 * and writers, a semaphore's permits. Each violation is found, and a clean history passes.
 */
class FamilyCheckTest {
  private static final String RW = "torture-rw-a";
  private static final String SEM = "torture-sem";

  @Nested
  class ReadWrite {
    /**
     * A writer, two readers sharing the lock and one read epoch's token (above the writer's), a
     * second writer (above the epoch's), a reader opening a new epoch above it.
     */
    private HistoryBuilder clean() {
      return new HistoryBuilder()
          .writerSection("w1/0/1", RW, 100, 0, 50)
          .readerSection("w2/0/1", RW, 110, 60, 120)
          .readerSection("w1/1/1", RW, 110, 70, 130)
          .writerSection("w2/1/1", RW, 200, 140, 200)
          .readerSection("w1/0/2", RW, 210, 210, 260);
    }

    @Test
    void cleanHistory_readersShareTheLock_andEveryCheckPasses() {
      RunResult r = clean().check(Fault.NONE, Workload.READ_WRITE);

      assertThat(r.failures()).isEmpty();
      assertThat(r.holds()).isEqualTo(5);
      assertThat(r.overlaps().pairs()).isZero();
      assertThat(r.fencing().violations()).isZero();
      assertThat(r.losses().lost()).isZero();
      assertThat(r.updates().accepted()).isEqualTo(2);
      assertThat(r.updates().lost()).isZero();
    }

    /** Reader w1 (token 50) reads from 0 to 100, reader w2 ({@code token}) from 20 to 120. */
    private RunResult twoOverlappingReaders(long token) {
      return new HistoryBuilder()
          .readerSection("w1/0/1", RW, 50, 0, 100)
          .readerSection("w2/0/1", RW, token, 20, 120)
          .check(Fault.NONE, Workload.READ_WRITE);
    }

    @Test
    void readersOfOneEpoch_shareItsToken_andPassEveryCheck() {
      // The second reader is granted while the first holds: it joins the epoch, same token; the
      // store accepts both reads (equal tokens pass).
      RunResult r = twoOverlappingReaders(50);

      assertThat(r.failures()).isEmpty();
      assertThat(r.fencing().violations()).isZero();
      assertThat(r.losses().lost()).isZero();
      assertThat(r.overlaps().pairs()).isZero();
    }

    @Test
    void aLaterReaderWithALargerToken_isNoLoss() {
      // A reader that opened a later epoch (its token larger) does not take the lock from an
      // earlier reader: readers share the lock.
      RunResult r = twoOverlappingReaders(60);

      assertThat(r.failures()).isEmpty();
      assertThat(r.losses().lost()).isZero();
      assertThat(r.overlaps().pairs()).isZero();
    }

    /** Writer w1 still works when a reader, granted after it (a new epoch, token 101), reads at 2001. */
    private HistoryBuilder readerDuringAWrite(String writeOutcome) {
      return new HistoryBuilder()
          .acquired("w1/0/1", RW, Hold.WRITE, 100, 0, 1, false)
          .read("w1/0/1", RW, 100, 2, "ok", 0)
          .acquired("w2/0/1", RW, Hold.READ, 101, 1900, 2000, false)
          .readShared("w2/0/1", RW, 101, 2001, 2002, "ok")
          .release("w2/0/1", RW, 101, 2100, true, Event.RELEASED)
          .write("w1/0/1", RW, 100, 2500, 2501, writeOutcome, 0)
          .lostNotice("w1/0/1", RW, 100, 1600)
          .release("w1/0/1", RW, 100, 2600, false, Event.RELEASE_LOST);
    }

    @Test
    void readOverlappingAWrite_withoutFaults_failsTheRun() {
      RunResult r = readerDuringAWrite("refused").check(Fault.NONE, Workload.READ_WRITE);

      assertThat(r.overlaps().pairs()).isEqualTo(1);
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(a)"));
      assertThat(r.overlaps().examples()).singleElement().asString().contains("w1/0/1").contains("w2/0/1");
    }

    @Test
    void readOverlappingAWrite_explainedByAPause_andTheWriteRefused_passes() {
      RunResult r = readerDuringAWrite("refused").fault("pause-holder", "w1", 100, 1900)
          .check(Fault.PAUSE_HOLDER, Workload.READ_WRITE);

      assertThat(r.overlaps().pairs()).isEqualTo(1);
      assertThat(r.overlaps().unexplained()).isZero();
      assertThat(r.fencing().staleRefused()).isEqualTo(1);
      assertThat(r.losses().lost()).as("the reader took the lock from the writer").isEqualTo(1);
      assertThat(r.losses().unreported()).isZero();
      assertThat(r.failures()).isEmpty();
    }

    @Test
    void staleWriteAccepted_afterTheReadOfALaterReader_isAViolation() {
      RunResult r = readerDuringAWrite("accepted").fault("pause-holder", "w1", 100, 1900)
          .storeAccepts(RW, 100, 0, "w1/0/1")
          .check(Fault.PAUSE_HOLDER, Workload.READ_WRITE);

      assertThat(r.fencing().staleAccepted()).isEqualTo(1);
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(b)"));
      assertThat(r.fencing().tokenInversions()).isZero();
      assertThat(r.fencing().examples()).anyMatch(e -> e.contains("stale write accepted")
          && e.contains("the read of w2/0/1 (read, token 101)"));
    }

    /**
     * Reader w1 (token 100) is paused before its read, its lease runs out and {@code between} runs
     * another hold; then w1's read is accepted anyway.
     */
    private RunResult pausedReaderReadsAfter(java.util.function.UnaryOperator<HistoryBuilder> between) {
      HistoryBuilder h = new HistoryBuilder()
          .acquired("w1/0/1", RW, Hold.READ, 100, 0, 1, false)
          .fault("pause-holder", "w1", 10, 2900);
      return between.apply(h)
          .readShared("w1/0/1", RW, 100, 3000, 3001, "ok")
          .release("w1/0/1", RW, 100, 3100, false, Event.RELEASE_LOST)
          .lostNotice("w1/0/1", RW, 100, 2950)
          .check(Fault.PAUSE_HOLDER, Workload.READ_WRITE);
    }

    @Test
    void staleReadAccepted_afterANewerWriter_isAViolation() {
      // Reader w1 (token 100) is paused before its read; writer w2 (200) is granted and reads, then
      // w1's read is accepted anyway.
      RunResult r = pausedReaderReadsAfter(h -> h.writerSection("w2/0/1", RW, 200, 2000, 2100));

      assertThat(r.overlaps().pairs()).isEqualTo(1);
      assertThat(r.overlaps().unexplained()).isZero();
      assertThat(r.fencing().staleAccepted()).isEqualTo(1);
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(b)"));
    }

    @Test
    void staleReadAccepted_afterTheReadOfALaterEpoch_isAViolation() {
      // Reader w1 (epoch token 100) is paused before its read and its lease runs out; reader w2 opens
      // the next epoch (110) and reads; then w1's read is accepted anyway.
      RunResult r = pausedReaderReadsAfter(h -> h.readerSection("w2/0/1", RW, 110, 2000, 2100));

      assertThat(r.overlaps().pairs()).as("readers may overlap").isZero();
      assertThat(r.fencing().tokenInversions()).isZero();
      assertThat(r.fencing().staleAccepted()).isEqualTo(1);
      assertThat(r.fencing().examples()).anyMatch(e -> e.contains("stale read accepted")
          && e.contains("the read of w2/0/1 (read, token 110)"));
    }

    @Test
    void twoOverlappingWrites_withoutFaults_failTheRun() {
      RunResult r = new HistoryBuilder()
          .acquired("w1/0/1", RW, Hold.WRITE, 100, 0, 1, false)
          .writerSection("w2/0/1", RW, 200, 500, 600)
          .release("w1/0/1", RW, 100, 700, true, Event.RELEASED)
          .check(Fault.NONE, Workload.READ_WRITE);

      assertThat(r.overlaps().pairs()).isEqualTo(1);
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(a)"));
      assertThat(r.losses().unreported()).as("w1 was lost to w2 and close() returned normally").isEqualTo(1);
    }

    @Test
    void readerAskingAfterAWrite_withAnOlderToken_isATokenInversion() {
      RunResult r = new HistoryBuilder()
          .writerSection("w1/0/1", RW, 200, 0, 50)
          .readerSection("w2/0/1", RW, 100, 60, 120)
          .check(Fault.NONE, Workload.READ_WRITE);

      assertThat(r.fencing().tokenInversions()).isEqualTo(1);
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(b)"));
    }

    @Test
    void readerAskingAfterAWrite_withItsToken_isATokenInversion() {
      // The design before issue 25: a reader carried the last write's token. A paused writer could
      // then write after the reader's read under the rule "refuse lower tokens".
      RunResult r = new HistoryBuilder()
          .writerSection("w1/0/1", RW, 200, 0, 50)
          .readerSection("w2/0/1", RW, 200, 60, 120)
          .check(Fault.NONE, Workload.READ_WRITE);

      assertThat(r.fencing().tokenInversions()).isEqualTo(1);
      assertThat(r.fencing().examples()).anyMatch(e -> e.startsWith("token inversion") && e.contains("w2/0/1")
          && e.contains("after w1/0/1 (write, token 200)"));
    }

    @Test
    void readerAskingAfterAReader_withASmallerToken_isATokenInversion() {
      RunResult r = new HistoryBuilder()
          .readerSection("w1/0/1", RW, 100, 0, 50)
          .readerSection("w2/0/1", RW, 90, 60, 120)
          .check(Fault.NONE, Workload.READ_WRITE);

      assertThat(r.fencing().tokenInversions()).isEqualTo(1);
    }

    @Test
    void writerAskingAfterAReader_withItsToken_isATokenInversion() {
      RunResult r = new HistoryBuilder()
          .readerSection("w1/0/1", RW, 100, 0, 50)
          .writerSection("w2/0/1", RW, 100, 60, 120)
          .check(Fault.NONE, Workload.READ_WRITE);

      assertThat(r.fencing().tokenInversions()).isEqualTo(1);
    }
  }

  @Nested
  class Semaphore {
    /** Three holders at once, then a fourth once one left. */
    private HistoryBuilder clean() {
      return new HistoryBuilder()
          .permitSection("w1/0/1", SEM, 1, 0, 100)
          .permitSection("w1/1/1", SEM, 2, 10, 110)
          .permitSection("w2/0/1", SEM, 3, 20, 120)
          .permitSection("w2/1/1", SEM, 4, 105, 200);
    }

    @Test
    void cleanHistory_permitsHolders_passEveryCheck() {
      RunResult r = clean().check(Fault.NONE, Workload.SEMAPHORE);

      assertThat(r.failures()).isEmpty();
      assertThat(r.holds()).isEqualTo(4);
      assertThat(r.overlaps().pairs()).isZero();
      assertThat(r.fencing().violations()).isZero();
      assertThat(r.losses().lost()).isZero();
      assertThat(r.updates().lost()).isZero();
    }

    /** A fourth holder granted at 50 while three hold, w1/0/1 among them; everyone got into the store. */
    private HistoryBuilder fourHolders() {
      return new HistoryBuilder()
          .permitSection("w1/0/1", SEM, 1, 0, 100)
          .permitSection("w1/1/1", SEM, 2, 10, 110)
          .permitSection("w2/0/1", SEM, 3, 20, 120)
          .permitSection("w2/1/1", SEM, 4, 50, 90);
    }

    @Test
    void morePermitHoldersThanPermits_withoutFaults_failTheRun() {
      RunResult r = fourHolders().check(Fault.NONE, Workload.SEMAPHORE);

      assertThat(r.overlaps().pairs()).isEqualTo(1);
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(a) 1 grants beyond the permits"));
      assertThat(r.overlaps().examples()).singleElement().asString().contains("4 holders of torture-sem");
    }

    @Test
    void morePermitHoldersThanPermits_explainedByAPause_areExpected() {
      RunResult r = fourHolders().fault("pause-holder", "w1", 5, 45).check(Fault.PAUSE_HOLDER, Workload.SEMAPHORE);

      assertThat(r.overlaps().pairs()).isEqualTo(1);
      assertThat(r.overlaps().unexplained()).isZero();
    }

    @Test
    void morePermitHoldersInsideTheStoreThanPermits_isAFencingViolation() {
      RunResult r = fourHolders().fault("pause-holder", "w1", 5, 45).check(Fault.PAUSE_HOLDER, Workload.SEMAPHORE);

      assertThat(r.fencing().staleAccepted()).as("four inside at once").isEqualTo(1);
      assertThat(r.failures()).anyMatch(f -> f.startsWith("(b)"));
      assertThat(r.fencing().examples()).anyMatch(e -> e.contains("4 holders inside the store"));
    }

    @Test
    void theOldestDroppedByTheStore_keepsTheFencedHoldersWithinThePermits() {
      // As permit_enter.lua does: the fourth entry drops the oldest token, whose leave is refused.
      RunResult r = new HistoryBuilder()
          .acquired("w1/0/1", SEM, Hold.PERMIT, 1, 0, 1, false)
          .enter("w1/0/1", SEM, 1, 2, "ok")
          .permitSection("w1/1/1", SEM, 2, 10, 110)
          .permitSection("w2/0/1", SEM, 3, 20, 120)
          .permitSection("w2/1/1", SEM, 4, 50, 90)
          .leave("w1/0/1", SEM, 1, 98, 99, "refused")
          .lostNotice("w1/0/1", SEM, 1, 40)
          .release("w1/0/1", SEM, 1, 100, false, Event.RELEASE_LOST)
          .fault("pause-holder", "w1", 5, 45)
          .check(Fault.PAUSE_HOLDER, Workload.SEMAPHORE);

      assertThat(r.fencing().violations()).isZero();
      assertThat(r.fencing().staleRefused()).isEqualTo(1);
      assertThat(r.failures()).isEmpty();
    }

    @Test
    void permitAskedAfterAnotherWasGranted_withASmallerToken_isATokenInversion() {
      RunResult r = new HistoryBuilder()
          .permitSection("w1/0/1", SEM, 5, 0, 50)
          .permitSection("w2/0/1", SEM, 4, 60, 120)
          .check(Fault.NONE, Workload.SEMAPHORE);

      assertThat(r.fencing().tokenInversions()).isEqualTo(1);
    }
  }
}
