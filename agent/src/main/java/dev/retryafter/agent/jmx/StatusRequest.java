package dev.retryafter.agent.jmx;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

/**
 * {@code status PID}'s question to the agent in a running JVM, asked through the attach mechanism
 * itself: the command loads the agent's jar again with {@code PREFIX + pid + ":" + file}, and the
 * agent already there writes its {@link StatusReport} into that file, which the command made and
 * reads. Nothing listens afterwards, as the JDK's local JMX connector would, on every interface,
 * for the rest of the JVM's life.
 */
public final class StatusRequest {

    /** The argument's start: never a policy file or a key, so a JVM without this class reads it as nothing. */
    public static final String PREFIX = "retry-after-agent-status:";

    private StatusRequest() {
    }

    /**
     * When {@code argument} is a status request, answers it and returns true. The file must exist:
     * this never makes one. Whatever fails goes into the answer, not into the application.
     */
    public static boolean answer(String argument, String running) {
        if (argument == null || !argument.startsWith(PREFIX)) {
            return false;
        }
        String request = argument.substring(PREFIX.length());
        int colon = request.indexOf(':');
        if (colon <= 0) {
            return true;
        }
        String pid = request.substring(0, colon);
        Path file = Paths.get(request.substring(colon + 1));
        try (OutputStream stream = Files.newOutputStream(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
             PrintStream out = new PrintStream(stream, false, "UTF-8")) {
            try {
                if (running == null) {
                    out.println("retry-after-agent is not on in " + pid);
                } else {
                    StatusReport.print(pid, running, out);
                }
            } catch (Exception | LinkageError e) {
                out.println("error: the agent in " + pid + " could not read its MBeans: " + e);
            }
        } catch (Exception | LinkageError e) {
            // the command says it had no answer
        }
        return true;
    }
}
