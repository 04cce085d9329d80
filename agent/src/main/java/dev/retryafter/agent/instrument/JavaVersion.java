package dev.retryafter.agent.instrument;

/** The running JVM's feature release, from {@code java.specification.version}: "1.8" is 8, "11" is 11. */
public final class JavaVersion {

    private JavaVersion() {
    }

    public static int feature() {
        String version = System.getProperty("java.specification.version", "0");
        if (version.startsWith("1.")) {
            version = version.substring(2);
        }
        int dot = version.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    public static boolean atLeast(int feature) {
        return feature() >= feature;
    }
}
