package io.relock.internal;

import java.nio.charset.StandardCharsets;

/** Redis Cluster's key-to-slot mapping: CRC16/XMODEM of the key's hash tag, modulo 16384. */
public final class Slots {
  public static final int COUNT = 16384;

  private Slots() {}

  /** The slot of {@code key}; a non-empty {@code {tag}} stands for the whole key, as in Redis. */
  public static int slotOf(String key) {
    int open = key.indexOf('{');
    if (open >= 0) {
      int close = key.indexOf('}', open + 1);
      if (close > open + 1) {
        key = key.substring(open + 1, close);
      }
    }
    return crc16(key.getBytes(StandardCharsets.UTF_8)) % COUNT;
  }

  static int crc16(byte[] bytes) {
    int crc = 0;
    for (byte b : bytes) {
      crc ^= (b & 0xff) << 8;
      for (int i = 0; i < 8; i++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
    }
    return crc & 0xffff;
  }
}
