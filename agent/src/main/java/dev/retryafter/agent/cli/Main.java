package dev.retryafter.agent.cli;

import java.lang.reflect.InvocationTargetException;

/**
 * {@code java -jar retry-after-agent.jar list | attach PID [ARGUMENT] | status PID | help}: the jar's
 * {@code Main-Class}. Java 8 bytecode, so that an old {@code java} gets one clear line; the commands
 * themselves use the attach API of Java 9 and later ({@code jdk.attach}), and are loaded only there.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        String version = System.getProperty("java.specification.version", "");
        if (version.startsWith("1.")) {
            System.err.println("retry-after-agent: the command line needs Java 9 or later (this java is " + version
                    + "); run it with a JDK 9+ java: it attaches to Java 8 JVMs too. (On Java 8 itself, the attach API"
                    + " is in a JDK's lib/tools.jar.)");
            System.exit(2);
        }
        int code;
        try {
            code = (Integer) Class.forName("dev.retryafter.agent.cli.attach.Commands")
                    .getMethod("run", String[].class).invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof NoClassDefFoundError && String.valueOf(cause.getMessage()).contains("com/sun/tools/attach")) {
                System.err.println("retry-after-agent: this java has no attach API (module jdk.attach): run it with a JDK's java, not a JRE's");
            } else {
                System.err.println("retry-after-agent: " + cause);
            }
            code = 1;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            System.err.println("retry-after-agent: the command line could not start (" + e + ")");
            code = 1;
        }
        System.exit(code);
    }
}
