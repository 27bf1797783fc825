package io.relock.internal;

import io.relock.RelockListener;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link RelockListener}s of one client. Events are emitted on whatever thread learns of them
 * (callers, mailboxes, Redis I/O threads); a listener that throws is logged and skipped. With no
 * listener registered, emitting costs one volatile read.
 */
final class Listeners {
  private static final Logger log = LoggerFactory.getLogger(Listeners.class);

  private final CopyOnWriteArrayList<RelockListener> list = new CopyOnWriteArrayList<>();

  void add(RelockListener listener) {
    list.add(listener);
  }

  void remove(RelockListener listener) {
    list.remove(listener);
  }

  /** Whether anyone listens; callers skip measuring what nobody would hear. */
  boolean any() {
    return !list.isEmpty();
  }

  void emit(Consumer<RelockListener> event) {
    for (RelockListener l : list) {
      try {
        event.accept(l);
      } catch (RuntimeException | Error e) {
        log.error("RelockListener {} threw; ignored", l, e);
      }
    }
  }
}
