package dev.retryafter.agent.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The switch read alone says off exactly when the full read would, and names what said so. */
class OffSwitchTest {

    @TempDir
    Path dir;

    @Test
    void saysOffExactlyWhenTheFullReadDoes() throws Exception {
        Path on = Files.writeString(dir.resolve("on.properties"), "enabled = true\ndefault.max-attempts = 2\n");
        Path off = Files.writeString(dir.resolve("off.properties"), "# staged\n\nenabled = \\\n  false\ndefault.max-attempts = 2\n");
        Path silent = Files.writeString(dir.resolve("silent.properties"), "default.max-attempts = 2\n");
        List<String> arguments = new ArrayList<>();
        arguments.add(null);
        arguments.add("");
        for (Path file : List.of(on, off, silent)) {
            arguments.add(file.toString());
            arguments.add("config=" + file);
            arguments.add("config=" + file + ",enabled=false");
            arguments.add("enabled=false,config=" + file + ",enabled=true");
            arguments.add("config=" + file + ",enabled=off,default.max-sleep=2m");
        }
        arguments.add("enabled=no");
        arguments.add("enabled=yes");
        for (String variable : new String[] {null, "", "false", "true", "OFF"}) {
            Map<String, String> environment = variable == null ? Collections.emptyMap()
                    : Collections.singletonMap(AgentArguments.ENABLED_VARIABLE, variable);
            for (String argument : arguments) {
                boolean fullReadSaysOff = !AgentArguments.load(argument, environment).enabled();
                String offBy = OffSwitch.offBy(argument, environment);
                assertEquals(fullReadSaysOff, offBy != null, () -> "argument " + argument + ", variable " + variable + ": " + offBy);
            }
        }
    }

    @Test
    void namesWhatSwitchedItOff() throws Exception {
        Path off = Files.writeString(dir.resolve("off.properties"), "# staged\ndefault.max-attempts = 2\nenabled = false\n");
        assertEquals(off + ":3", OffSwitch.offBy(off.toString(), Collections.emptyMap()));
        assertEquals("agent argument", OffSwitch.offBy("config=" + off + ",enabled=false", Collections.emptyMap()));
        Map<String, String> environment = new HashMap<>();
        environment.put(AgentArguments.ENABLED_VARIABLE, "false");
        assertEquals("environment variable RETRY_AFTER_AGENT_ENABLED", OffSwitch.offBy("enabled=true", environment));
    }

    /** Off is off: the policies of a file switched off are not read, so their mistakes show when it is switched on. */
    @Test
    void aFileSwitchedOffIsNotReadFurther() throws Exception {
        Path off = Files.writeString(dir.resolve("off.properties"), "enabled = false\ndefault.max-sleeep = 3s\n");
        assertEquals(off + ":1", OffSwitch.offBy(off.toString(), Collections.emptyMap()));
    }

    @Test
    void whatItCannotReadPlainlyIsLeftToTheFullRead() throws Exception {
        Map<String, String> none = Collections.emptyMap();
        assertNull(OffSwitch.offBy("/no/such/policies.properties", none));
        assertNull(OffSwitch.offBy("config=x.properties,nonsense", none));
        assertNull(OffSwitch.offBy("enabled=maybe", none));
        assertNull(OffSwitch.offBy(Files.writeString(dir.resolve("broken.properties"), "enabled false\n").toString(), none));
        assertNull(OffSwitch.offBy(null, Collections.singletonMap(AgentArguments.ENABLED_VARIABLE, "perhaps")));
    }
}
