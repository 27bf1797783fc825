package io.relock.testkit;

/**
 * Child JVM for {@link JvmProcessTest}: greets on stdout and stderr, echoes its arguments and the
 * system property {@code some.flag} and its JVM options, then either exits with the code given as {@code exit=N} or
 * prints a numbered tick every 50 ms forever.
 */
public final class ChildMain {

    private ChildMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println("hello from child");
        System.out.println("args=" + String.join(",", args));
        System.out.println("some.flag=" + System.getProperty("some.flag"));
        System.out.println("jvm options=" + java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
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
