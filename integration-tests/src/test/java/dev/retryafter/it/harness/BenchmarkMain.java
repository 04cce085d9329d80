package dev.retryafter.it.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the benchmarks' main methods share: {@code --smoke} and {@code --out=PATH}, and publishing the report. */
public final class BenchmarkMain {

    public final boolean smoke;
    public final Path output;

    private BenchmarkMain(boolean smoke, Path output) {
        this.smoke = smoke;
        this.output = output;
    }

    /** The output defaults to {@code defaultOutput}, or the system property {@code outputProperty} when set. */
    public static BenchmarkMain parse(String[] args, String outputProperty, String defaultOutput) {
        boolean smoke = false;
        Path output = Path.of(System.getProperty(outputProperty, defaultOutput));
        for (String arg : args) {
            if (arg.equals("--smoke")) {
                smoke = true;
            } else if (arg.startsWith("--out=")) {
                output = Path.of(arg.substring("--out=".length()));
            } else {
                throw new IllegalArgumentException("unknown argument " + arg + "; expected --smoke or --out=PATH");
            }
        }
        return new BenchmarkMain(smoke, output);
    }

    /** Prints the report and writes it to the output file. */
    public void publish(String markdown) throws IOException {
        System.out.println(markdown);
        Path parent = output.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(output, markdown, StandardCharsets.UTF_8);
        System.out.println("Written to " + output.toAbsolutePath());
    }
}
