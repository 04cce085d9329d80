package sun.net.www;

/**
 * A stand-in for the compiler only, never in the jar (agent/pom.xml's jar configuration leaves out {@code sun/**}): the
 * JDK's own holder of a response's header lines, which {@code urlconnection/ResponseAdvice}, inlined into the JDK's
 * {@code HttpURLConnection}, empties as the JDK does on a redirect, so that a resend that fails never leaves the
 * refusal's status line to be read as its answer. Java 8 to 25 all have this public {@code reset()}; the release-8
 * compiler cannot see the JDK's class, so the advice names this one, and at run time the JDK's is the one it calls.
 */
public class MessageHeader {

    public synchronized void reset() {
        throw new UnsupportedOperationException("a stand-in for the compiler");
    }
}
