package dev.retryafter.it.cost;

import dev.retryafter.it.harness.ChildJvm;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A child JVM's {@code NAME key=value key=value} lines, which is all it tells the benchmark. */
final class ResultLine {

    private final Map<String, String> values;

    private ResultLine(Map<String, String> values) {
        this.values = values;
    }

    /** The first line starting with {@code name}; a child that printed none failed, and the whole output says why. */
    static ResultLine first(ChildJvm.Result child, String name) {
        return all(child, name).stream().findFirst()
                .orElseThrow(() -> new AssertionError("the child JVM printed no " + name + " line:\n" + child));
    }

    static List<ResultLine> all(ChildJvm.Result child, String name) {
        if (child.exitCode != 0) {
            throw new AssertionError("the child JVM failed:\n" + child);
        }
        return child.stdout.lines().filter(line -> line.startsWith(name + " ")).map(ResultLine::of).toList();
    }

    /** One line, as read while the child runs. */
    static ResultLine of(String line) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String pair : line.split(" ")) {
            int equals = pair.indexOf('=');
            if (equals > 0) {
                values.put(pair.substring(0, equals), pair.substring(equals + 1));
            }
        }
        return new ResultLine(values);
    }

    String text(String key) {
        String value = values.get(key);
        if (value == null) {
            throw new AssertionError("no " + key + " in " + values);
        }
        return value;
    }

    long number(String key) {
        return Long.parseLong(text(key));
    }
}
