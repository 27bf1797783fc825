package io.relock.testkit;

/**
 * Child JVM for {@link JvmProcessTest}: greets on stdout and stderr, echoes its arguments, then
 * either exits with the code given as {@code exit=N} or prints a numbered tick every 50 ms forever.
 */
public final class ChildMain {

    private ChildMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println("hello from child");
        System.out.println("args=" + String.join(",", args));
        System.err.println("this went to stderr");
        for (String arg : args) {
            if (arg.startsWith("exit=")) {
                System.out.flush();
                System.exit(Integer.parseInt(arg.substring("exit=".length())));
            }
        }
        for (long tick = 1; ; tick++) {
            System.out.println("tick " + tick);
            Thread.sleep(50);
        }
    }
}
