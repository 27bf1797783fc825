package io.relock.internal;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time in the order they were posted, on the thread that posts while no task
 * is running (so an uncontended post costs no thread hand-off). Everything a {@link LockState}
 * owns is touched only from its mailbox's tasks: callers, Redis I/O threads and timers post events
 * to it and never touch that state themselves.
 *
 * <p>A task posted from inside a task runs after the current one, never nested in it. Tasks must
 * not block.
 */
final class Mailbox {
  private static final Logger log = LoggerFactory.getLogger(Mailbox.class);

  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicInteger pending = new AtomicInteger();

  void post(Runnable task) {
    tasks.add(task);
    if (pending.getAndIncrement() != 0) {
      return; // another thread is draining and will run it
    }
    do {
      Runnable next = tasks.poll();
      try {
        next.run();
      } catch (RuntimeException | Error e) {
        log.error("relock internal error in a lock event; the event was dropped", e);
      }
    } while (pending.decrementAndGet() != 0);
  }
}
