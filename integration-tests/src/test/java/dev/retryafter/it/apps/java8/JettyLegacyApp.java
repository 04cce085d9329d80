package dev.retryafter.it.apps.java8;

/**
 * One Jetty 9.4-11 request, printing {@code STATUS <status> <body length>}: {@code get URL}, {@code get-listener URL},
 * {@code post-once URL} (a stream Jetty cannot produce twice), {@code post-replayable URL} (a string). Java 8 bytecode.
 */
public final class JettyLegacyApp {

    private JettyLegacyApp() {
    }

    public static void main(String[] args) throws Exception {
        try (JettyLegacyClient jetty = new JettyLegacyClient()) {
            Object response;
            switch (args[0]) {
                case "get":
                    response = jetty.send(jetty.request(args[1], null, null));
                    break;
                case "get-listener":
                    response = jetty.sendWithListener(jetty.request(args[1], null, null));
                    break;
                case "post-once":
                    response = jetty.send(jetty.post(args[1], "once", true));
                    break;
                case "post-replayable":
                    response = jetty.send(jetty.post(args[1], "every time", false));
                    break;
                default:
                    throw new IllegalArgumentException(args[0]);
            }
            System.out.println("STATUS " + JettyLegacyClient.status(response) + " " + JettyLegacyClient.bodyLength(response));
        }
    }
}
