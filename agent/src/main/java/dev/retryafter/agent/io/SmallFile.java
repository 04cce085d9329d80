package dev.retryafter.agent.io;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * A file that is meant to be small (a policy, the state file), read whole up to a bound. A path
 * set to {@code /dev/zero}, a log or any large file is refused once past the bound rather than
 * read into the application's heap. With {@code java.io} and no {@code +} of strings: the off
 * switch reads the policy file with it before {@code main} (see {@code config.OffSwitch}).
 */
public final class SmallFile {

    private SmallFile() {
    }

    /** The file holds more than the bound: nothing of it was kept. */
    public static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        TooLarge(File file, int bound) {
            super(new StringBuilder().append(file).append(" is larger than ").append(size(bound)).toString());
        }
    }

    /** Every byte of {@code file}; {@link TooLarge} after reading {@code bound} + 1 of them. */
    public static byte[] read(File file, int bound) throws IOException {
        try (InputStream in = new FileInputStream(file)) {
            // A regular file's length, read in one go; a device or a pipe says 0 and grows the buffer.
            byte[] content = new byte[(int) Math.min(Math.max(file.length() + 1, 8192), bound + 1L)];
            int length = 0;
            for (int n; (n = in.read(content, length, content.length - length)) >= 0; ) {
                length += n;
                if (length == content.length) {
                    if (length > bound) {
                        throw new TooLarge(file, bound);
                    }
                    content = Arrays.copyOf(content, (int) Math.min(content.length * 2L, bound + 1L));
                }
            }
            return length == content.length ? content : Arrays.copyOf(content, length);
        }
    }

    /** "1 MiB", "32 MiB": how bounds are said. */
    public static String size(int bytes) {
        return bytes % (1 << 20) == 0 ? new StringBuilder().append(bytes >> 20).append(" MiB").toString()
                : new StringBuilder().append(bytes).append(" bytes").toString();
    }
}
