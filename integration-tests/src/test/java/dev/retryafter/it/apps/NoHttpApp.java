package dev.retryafter.it.apps;

/** Does some work and no HTTP at all: with the agent on, nothing was governed. */
public final class NoHttpApp {

    private NoHttpApp() {
    }

    public static void main(String[] args) {
        System.out.println("DONE " + Long.toHexString(System.nanoTime()));
    }
}
