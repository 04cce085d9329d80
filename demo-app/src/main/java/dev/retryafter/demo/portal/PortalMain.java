package dev.retryafter.demo.portal;

/** Starts one lying portal on loopback until killed: {@code PortalMain truthful 10 2000} (behaviour, limit, window ms). */
public final class PortalMain {

    private PortalMain() {
    }

    public static void main(String[] args) throws Exception {
        Behaviour behaviour = Behaviour.fromLabel(args.length > 0 ? args[0] : "truthful");
        int limit = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        long window = args.length > 2 ? Long.parseLong(args[2]) : 2_000;
        PortalServer server = new PortalServer(new PortalModel(behaviour, limit, window));
        System.out.println("PORTAL " + behaviour.label() + " " + server.baseUrl());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("STATS " + server.stats())));
        Thread.currentThread().join();
    }
}
