package dev.retryafter.agent.io;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A file is read whole up to its bound, and refused one byte past it. */
class SmallFileTest {

    @TempDir
    Path directory;

    @Test
    void aFileUpToTheBoundIsReadWhole() throws Exception {
        for (int length : new int[] {0, 1, 8191, 8192, 8193, 100_000}) {
            byte[] content = new byte[length];
            Arrays.fill(content, (byte) 'x');
            File file = Files.write(directory.resolve("f" + length), content).toFile();
            assertArrayEquals(content, SmallFile.read(file, 100_000), "length " + length);
        }
    }

    @Test
    void aFileOneBytePastTheBoundIsRefused() throws Exception {
        File file = Files.write(directory.resolve("f"), new byte[(1 << 20) + 1]).toFile();
        SmallFile.TooLarge refused = assertThrows(SmallFile.TooLarge.class, () -> SmallFile.read(file, 1 << 20));
        assertEquals(file + " is larger than 1 MiB", refused.getMessage());
    }

    @Test
    void aDeviceThatNeverEndsIsReadNoFurtherThanTheBound() throws Exception {
        File zero = new File("/dev/zero");
        org.junit.jupiter.api.Assumptions.assumeTrue(zero.exists(), "a system with /dev/zero");
        assertThrows(SmallFile.TooLarge.class, () -> SmallFile.read(zero, 1 << 20));
    }
}
