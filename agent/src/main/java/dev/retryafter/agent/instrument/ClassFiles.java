package dev.retryafter.agent.instrument;

import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;

/** A class's file as {@code loader} has it (the system loader for null): the agent reads its own classes' bytes so. */
public final class ClassFiles {

    private ClassFiles() {
    }

    public static byte[] read(ClassLoader loader, String className) throws IOException {
        String name = className.replace('.', '/') + ".class";
        InputStream in = loader == null ? ClassLoader.getSystemResourceAsStream(name) : loader.getResourceAsStream(name);
        if (in == null) {
            throw new FileNotFoundException(name);
        }
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) > 0; ) {
                bytes.write(buffer, 0, n);
            }
            return bytes.toByteArray();
        } finally {
            in.close();
        }
    }
}
