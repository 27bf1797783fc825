package io.relock.torture;

import java.util.Arrays;

/**
 * What kind of lock a run's workers take. The exclusive lock is what the suite was built for; the
 * lock family's two other kinds have a workload of their own each, because what may overlap, what a
 * token means and what the store can fence differ:
 * <ul>
 *   <li>{@link #READ_WRITE}: {@code readWriteLock(name)}; readers share, a writer is alone. A write
 *       hold's token is new and larger than every earlier one; a read hold carries its read epoch's
 *       token, new and larger than every earlier one when the epoch opened and shared by the readers
 *       that join it while it lasts. So the store needs one rule for reads and writes alike: refuse a
 *       token lower than the highest it has accepted (see {@code reader.lua}).
 *   <li>{@link #SEMAPHORE}: {@code semaphore(name, PERMITS)}; at most {@link #PERMITS} holders. Every
 *       permit gets a token of its own, larger than every earlier one of the name; the store admits at
 *       most that many tokens at once (see {@code permit_enter.lua}).
 * </ul>
 */
enum Workload {
  EXCLUSIVE("exclusive", "exclusive lock"),
  READ_WRITE("rw", "read-write lock"),
  SEMAPHORE("sem", "semaphore of " + Workload.PERMITS + " permits");

  /** The permits of the semaphore workload. */
  static final int PERMITS = 3;
  /** Of the read-write workload's critical sections, this many in a hundred read; the others write. */
  static final int READ_PERCENT = 70;

  /** The prefix of a run's name ({@code rw-pause-holder}), and the worker argument. */
  final String id;
  final String description;

  Workload(String id, String description) {
    this.id = id;
    this.description = description;
  }

  static Workload byId(String id) {
    return Arrays.stream(values()).filter(w -> w.id.equals(id)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown workload '" + id + "'"));
  }

  /** The name of a single-server run of this workload with {@code fault}. */
  String runName(Fault fault) {
    return this == EXCLUSIVE ? fault.id : id + "-" + fault.id;
  }

  /** The locks' kind, as the summary table shows it. */
  String kind() {
    return switch (this) {
      case EXCLUSIVE -> "exclusive";
      case READ_WRITE -> "read-write";
      case SEMAPHORE -> "semaphore(" + PERMITS + ")";
    };
  }
}
