package dev.retryafter.it.apps;

/**
 * One GET, whose first answer is a 429 with a body that stalls or never ends. Prints
 * {@code STATUS <code> <elapsed ms>}, or {@code ERROR <throwable>}. Args: client, URL.
 */
public final class RefusedBodyApp {

    private RefusedBodyApp() {
    }

    public static void main(String[] args) throws Exception {
        try (ApacheGet client = ApacheGet.of(args[0])) {
            long start = System.nanoTime();
            try (ApacheGet.Response response = client.get(args[1], false)) {
                response.body().readAllBytes();
                System.out.println("STATUS " + response.status() + " " + (System.nanoTime() - start) / 1_000_000);
            } catch (Throwable t) {
                System.out.println("ERROR " + t);
            }
        }
    }
}
