package io.relock.testkit;

/**
 * Child JVM for {@link ProcessHygieneTest}: starts a redis-server, reports its pid and data
 * directory, then either exits at once without closing it ({@code exit}) or waits to be killed.
 */
public final class RedisHolderMain {

    private RedisHolderMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        RedisServer server = RedisServer.start();
        System.out.println("redis pid=" + server.pid() + " dir=" + server.dataDir());
        if (args.length > 0 && args[0].equals("exit")) {
            System.exit(0);
        }
        Thread.sleep(Long.MAX_VALUE);
    }
}
