package io.relock.bench;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Checks, while the lock family's rows run, that the locks did what they promise, so the bench
 * never reports figures for a broken lock: no writer at the same time as anyone else, and never
 * more semaphore holders than permits. The holds of all worker processes are counted in one small
 * file every worker maps ({@code MAP_SHARED}: the same physical memory in each process), with
 * atomic adds through a {@link VarHandle}, so a read hold in one process and a write hold in
 * another are seen together.
 *
 * <p>A thread calls {@link #enter} right after its acquire returned and {@link #exit} right
 * before it releases, so what is counted lies within the hold as Redis granted it: a correct lock
 * never shows an overlap, whatever the timing. {@code enter} first adds itself, then reads the
 * others (each a volatile, sequentially consistent access): of two holds that overlap, the second
 * to enter always sees the first. A violation is counted (in the file, for every process, and
 * here with its first description), never thrown: the loop goes on and releases what it holds.
 */
final class HoldCheck {

  /** What a hold is. */
  enum Mode { READ, WRITE, PERMIT }

  private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
  private static final int READERS = 0;
  private static final int WRITERS = 8;
  private static final int HOLDERS = 16;
  private static final int VIOLATIONS = 24;
  private static final int MOST_READERS = 32;
  private static final int MOST_HOLDERS = 40;
  /** Bytes the shared counters take. */
  static final int SIZE = 48;

  private final ByteBuffer shared;
  private final int permits;
  private final AtomicReference<String> firstViolation = new AtomicReference<>("");

  /**
   * A check on {@code shared}, a direct buffer of at least {@link #SIZE} bytes (a file mapping in
   * the bench, so that processes share it); {@code permits} bounds {@link Mode#PERMIT} holds.
   */
  HoldCheck(ByteBuffer shared, int permits) {
    if (!shared.isDirect() || shared.capacity() < SIZE) {
      throw new IllegalArgumentException("a check needs a direct buffer of " + SIZE + " bytes or more");
    }
    this.shared = shared;
    this.permits = permits;
  }

  /** A check on the counters in {@code file}, which {@link #reset} made. */
  static HoldCheck map(Path file, int permits) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      return new HoldCheck(ch.map(FileChannel.MapMode.READ_WRITE, 0, SIZE), permits);
    }
  }

  /** Creates {@code file} with every counter at zero (or sets them back to zero); before each run. */
  static void reset(Path file) throws IOException {
    Files.write(file, new byte[SIZE]);
  }

  /** Counts a hold that has just begun; false (and counted as a violation) if it breaks the lock's rule. */
  boolean enter(Mode mode) {
    return switch (mode) {
      case READ -> {
        long readers = add(READERS, 1);
        raise(MOST_READERS, readers);
        long writers = get(WRITERS);
        yield writers == 0 || violated("a read hold began while " + writers + " write hold(s) were held");
      }
      case WRITE -> {
        long writers = add(WRITERS, 1);
        long readers = get(READERS);
        yield writers == 1 && readers == 0
            || violated("a write hold began while " + (writers - 1) + " other write and " + readers + " read hold(s)"
                + " were held");
      }
      case PERMIT -> {
        long holders = add(HOLDERS, 1);
        raise(MOST_HOLDERS, holders);
        yield holders <= permits || violated(holders + " permit holders at once, with " + permits + " permits");
      }
    };
  }

  /** Counts a hold that is about to be released. */
  void exit(Mode mode) {
    add(switch (mode) {
      case READ -> READERS;
      case WRITE -> WRITERS;
      case PERMIT -> HOLDERS;
    }, -1);
  }

  /** Violations seen so far, by every process sharing the counters. */
  long violations() {
    return get(VIOLATIONS);
  }

  /** The most read holds at once so far, in all processes together. */
  long mostReaders() {
    return get(MOST_READERS);
  }

  /** The most permit holds at once so far, in all processes together. */
  long mostHolders() {
    return get(MOST_HOLDERS);
  }

  /** Holds counted now (read, write and permit together): 0 once every thread has released. */
  long holding() {
    return get(READERS) + get(WRITERS) + get(HOLDERS);
  }

  /** The first violation this process saw, or empty. */
  String firstViolation() {
    return firstViolation.get();
  }

  private boolean violated(String what) {
    add(VIOLATIONS, 1);
    firstViolation.compareAndSet("", what);
    return false;
  }

  private long add(int at, long delta) {
    return (long) LONGS.getAndAdd(shared, at, delta) + delta;
  }

  private long get(int at) {
    return (long) LONGS.getVolatile(shared, at);
  }

  private void raise(int at, long value) {
    long seen;
    while ((seen = get(at)) < value) {
      if ((boolean) LONGS.compareAndSet(shared, at, seen, value)) {
        return;
      }
    }
  }
}
