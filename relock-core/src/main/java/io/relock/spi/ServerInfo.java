package io.relock.spi;

/** What a driver reads from Redis's {@code INFO server} reply. */
public final class ServerInfo {
  private ServerInfo() {}

  /**
   * The major version in an {@code INFO server} reply ({@code redis_version:7.2.4} gives 7), which
   * decides, for instance, whether the server has sharded pub/sub (7 and later).
   *
   * @param info the reply's text
   * @return the major version; 0 if the reply has no {@code redis_version} line
   * @throws NumberFormatException if that line's version does not begin with a number
   */
  public static int majorVersion(String info) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("redis_version:")) {
        String version = line.substring("redis_version:".length()).trim();
        int dot = version.indexOf('.');
        return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
      }
    }
    return 0;
  }
}
