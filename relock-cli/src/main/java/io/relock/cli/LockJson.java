package io.relock.cli;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.relock.LockInfo;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;

/**
 * The {@code --json} form of locks, one stable shape for scripts:
 *
 * <pre>{@code
 * {"name":"jobs:nightly","held":true,
 *  "holder":{"owner":"<client>:l1","client":"<32 hex>","holdCount":1,"fencingToken":1718000000123456,
 *            "remainingLeaseMillis":29812,"since":null},
 *  "waiters":[{"owner":"...","client":"..."}],"lastToken":1718000000123456}
 * }</pre>
 *
 * {@code holder} is null when the lock is free; {@code since} (ISO-8601) is null while Redis does
 * not record it.
 */
final class LockJson implements AutoCloseable {
  private static final JsonFactory FACTORY = new JsonFactory();
  private final JsonGenerator json;

  LockJson(OutputStream out) {
    try {
      json = FACTORY.createGenerator(out, JsonEncoding.UTF8);
      json.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One lock as one object, then a line break (a line of its own for {@code watch}). */
  void line(LockInfo info, Instant at) {
    write(() -> {
      lock(info, at);
      json.flush();
    });
    newline();
  }

  /** Locks as one array, then a line break. */
  void array(List<LockInfo> infos) {
    write(() -> {
      json.writeStartArray();
      for (LockInfo info : infos) {
        lock(info, null);
      }
      json.writeEndArray();
      json.flush();
    });
    newline();
  }

  /** What {@code unlock} did: {"name":..,"released":bool,"holder":{...}|null}. */
  void released(String name, boolean released, LockInfo.Holder holder) {
    write(() -> {
      json.writeStartObject();
      json.writeStringField("name", name);
      json.writeBooleanField("released", released);
      json.writeFieldName("holder");
      holder(holder);
      json.writeEndObject();
      json.flush();
    });
    newline();
  }

  private void lock(LockInfo info, Instant at) throws IOException {
    json.writeStartObject();
    if (at != null) {
      json.writeStringField("time", at.toString());
    }
    json.writeStringField("name", info.name());
    json.writeBooleanField("held", info.isHeld());
    json.writeFieldName("holder");
    holder(info.holder().orElse(null));
    json.writeArrayFieldStart("waiters");
    for (LockInfo.Waiter w : info.waiters()) {
      json.writeStartObject();
      json.writeStringField("owner", w.ownerId());
      json.writeStringField("client", w.clientId());
      json.writeEndObject();
    }
    json.writeEndArray();
    json.writeNumberField("lastToken", info.lastToken());
    json.writeEndObject();
  }

  private void holder(LockInfo.Holder h) throws IOException {
    if (h == null) {
      json.writeNull();
      return;
    }
    json.writeStartObject();
    json.writeStringField("owner", h.ownerId());
    json.writeStringField("client", h.clientId());
    json.writeNumberField("holdCount", h.holdCount());
    json.writeNumberField("fencingToken", h.fencingToken());
    json.writeNumberField("remainingLeaseMillis", h.remainingLease().toMillis());
    json.writeFieldName("since");
    if (h.since().isPresent()) {
      json.writeString(h.since().get().toString());
    } else {
      json.writeNull();
    }
    json.writeEndObject();
  }

  private interface Writing {
    void run() throws IOException;
  }

  private void write(Writing w) {
    try {
      w.run();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void newline() {
    write(() -> {
      json.writeRaw('\n');
      json.flush();
    });
  }

  @Override
  public void close() {
    write(json::close);
  }
}
