package dev.retryafter.agent.jmx;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The mailbox's directory is its user's alone: made 0700, and one open to others, or a link, is refused. */
class CommandMailboxTest {

    private static final String USER = System.getProperty("user.name");

    @Test
    void madeForItsUserAlone(@TempDir Path dir) throws Exception {
        Path box = dir.resolve("box");
        CommandMailbox.ownDirectory(box, USER);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(box)));
        CommandMailbox.ownDirectory(box, USER); // there already, and fine
    }

    @Test
    void oneOpenToOthersALinkOrAnothersIsRefused(@TempDir Path dir) throws Exception {
        Path open = Files.createDirectory(dir.resolve("open"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxrwx")));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        IOException wide = assertThrows(IOException.class, () -> CommandMailbox.ownDirectory(open, USER));
        assertTrue(wide.getMessage().contains("is open to others"), wide.getMessage());

        Path target = Files.createDirectory(dir.resolve("target"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path link = Files.createSymbolicLink(dir.resolve("link"), target);
        IOException linked = assertThrows(IOException.class, () -> CommandMailbox.ownDirectory(link, USER));
        assertTrue(linked.getMessage().contains("is not a directory"), linked.getMessage());

        IOException others = assertThrows(IOException.class, () -> CommandMailbox.ownDirectory(target, USER + "-not"));
        assertTrue(others.getMessage().contains("belongs to " + USER), others.getMessage());
    }
}
