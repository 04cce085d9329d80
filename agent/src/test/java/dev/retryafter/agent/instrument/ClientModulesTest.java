package dev.retryafter.agent.instrument;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client is a module: checked, not hoped for. Every compiled class of the agent outside {@code instrument/<client>/}
 * is read as bytes, and its constant pool, where every class it refers to and every string it holds is named, must name
 * no client's types or packages, in internal or dotted form. Only the list of clients the agent knows it does not
 * govern ({@link UngovernedClients}) may name them. A new client's classes, advice and helpers go in its own package.
 */
class ClientModulesTest {

    /** Each client's packages, as a constant pool names them: in class references and descriptors, and in strings. */
    static final List<String> CLIENTS = List.of(
            "org/apache/http/", "org.apache.http.",
            "org/apache/hc/", "org.apache.hc.",
            "org/apache/commons/httpclient/", "org.apache.commons.httpclient.",
            "okhttp3/", "okhttp3.",
            "com/squareup/okhttp/", "com.squareup.okhttp.",
            "org/eclipse/jetty/", "org.eclipse.jetty.",
            "jdk/internal/net/http/", "jdk.internal.net.http.",
            "java/net/http/",
            "sun/net/www/", "sun.net.www.",
            "io/netty/", "io.netty.",
            "org/asynchttpclient/", "org.asynchttpclient.",
            "io/vertx/", "io.vertx.",
            "reactor/netty/", "reactor.netty.");

    /** The classes that may name clients: the list of those the agent does not govern. */
    static final List<String> ALLOWED = List.of("instrument/UngovernedClients.class");

    @Test
    void noClassOutsideAClientModuleNamesAClient() throws Exception {
        List<String> found = new ArrayList<>();
        for (Map.Entry<String, Path> shared : sharedClasses().entrySet()) {
            if (!ALLOWED.contains(shared.getKey())) {
                for (String name : clientsIn(shared.getValue())) {
                    found.add(shared.getKey() + " names " + name);
                }
            }
        }
        assertEquals(List.of(), found, "move it into the client's own package under instrument/");
    }

    /**
     * Shared code knows no client module either: only the list of modules ({@link ClientInstrumentation#MODULES}) names
     * a class of one. The dispatcher reaches a module through what the module itself made ({@link ClientModule#hooks}).
     */
    @Test
    void noClassOutsideAClientModuleNamesAModuleButTheListOfModules() throws Exception {
        List<String> modules;
        try (Stream<Path> packages = Files.list(agentClasses().resolve("instrument"))) {
            modules = packages.filter(Files::isDirectory).map(p -> "dev/retryafter/agent/instrument/" + p.getFileName() + "/")
                    .flatMap(module -> Stream.of(module, module.replace('/', '.'))) // in class references, and in strings
                    .collect(Collectors.toList());
        }
        List<String> found = new ArrayList<>();
        for (Map.Entry<String, Path> shared : sharedClasses().entrySet()) {
            if (!shared.getKey().startsWith("instrument/ClientInstrumentation")) {
                for (String module : namedIn(shared.getValue(), modules)) {
                    found.add(shared.getKey() + " names " + module);
                }
            }
        }
        assertEquals(List.of(), found, "reach the module through the hooks it makes, or move the class into it");
    }

    /** The agent's classes outside {@code instrument/<client>/}, by their path below the agent's package. */
    private static Map<String, Path> sharedClasses() throws Exception {
        Path agent = agentClasses();
        Path instrument = agent.resolve("instrument");
        List<Path> classes = classFiles(agent);
        assertTrue(classes.size() >= 200, "found the agent's classes: " + classes.size());
        Map<String, Path> shared = new TreeMap<>();
        for (Path file : classes) {
            if (!(file.startsWith(instrument) && instrument.relativize(file).getNameCount() > 1)) {
                shared.put(agent.relativize(file).toString().replace('\\', '/'), file);
            }
        }
        return shared;
    }

    /** The scan would see a client if there were one: a module's own classes name theirs. */
    @Test
    void theScanFindsTheClientsAModuleNames() throws Exception {
        Path instrument = agentClasses().resolve("instrument");
        assertTrue(clientsIn(instrument.resolve("apache5/Apache5Module.class")).contains("org/apache/hc/"));
        assertTrue(clientsIn(instrument.resolve("okhttp/EnqueueAdvice.class")).contains("okhttp3/"));
        assertTrue(clientsIn(instrument.resolve("UngovernedClients.class")).size() > 0, "the allowed list names clients");
    }

    /** Every client module is listed: a package under instrument/ with advice has a module in ClientInstrumentation.MODULES. */
    @Test
    void everyPackageWithAdviceHasItsModuleListed() throws Exception {
        Path instrument = agentClasses().resolve("instrument");
        List<String> listed = new ArrayList<>();
        for (ClientModule module : ClientInstrumentation.MODULES) {
            listed.add(module.getClass().getPackage().getName().substring(ClientInstrumentation.ADVICE.length()));
        }
        List<String> withAdvice;
        try (Stream<Path> packages = Files.list(instrument)) {
            withAdvice = packages.filter(Files::isDirectory)
                    .filter(ClientModulesTest::hasAdvice)
                    .map(p -> p.getFileName().toString())
                    .sorted()
                    .collect(Collectors.toList());
        }
        assertEquals(withAdvice, listed.stream().sorted().collect(Collectors.toList()));
    }

    private static boolean hasAdvice(Path directory) {
        try (Stream<Path> files = Files.list(directory)) {
            return files.anyMatch(f -> f.getFileName().toString().endsWith("Advice.class"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> clientsIn(Path classFile) throws IOException {
        return namedIn(classFile, CLIENTS);
    }

    private static List<String> namedIn(Path classFile, List<String> packages) throws IOException {
        // Constant-pool strings are modified UTF-8; ASCII names read the same in ISO-8859-1.
        String bytes = new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1);
        List<String> names = new ArrayList<>();
        for (String client : packages) {
            if (bytes.contains(client)) {
                names.add(client);
            }
        }
        return names;
    }

    private static Path agentClasses() throws URISyntaxException {
        Path instrument = Paths.get(ClientInstrumentation.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolve("dev/retryafter/agent");
        assertTrue(Files.isDirectory(instrument), instrument.toString());
        return instrument;
    }

    private static List<Path> classFiles(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.toString().endsWith(".class")).collect(Collectors.toList());
        }
    }
}
