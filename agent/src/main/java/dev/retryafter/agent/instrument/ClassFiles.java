package dev.retryafter.agent.instrument;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/**
 * A class's file as {@code loader} has it (the system loader for null): the agent reads its own
 * classes' bytes so. The agent's own come straight from its jar when it runs from one: a class
 * loader's resource lookup searches the JDK's modules first and opens a {@code jar:} URL, some 10 ms
 * of {@code premain} on its first use.
 */
public final class ClassFiles {

    private ClassFiles() {
    }

    public static byte[] read(ClassLoader loader, String className) throws IOException {
        String name = className.replace('.', '/') + ".class";
        JarFile jar = loader == ClassFiles.class.getClassLoader() ? AgentJar.FILE : null;
        ZipEntry entry = jar != null ? jar.getEntry(name) : null;
        InputStream in = entry != null ? jar.getInputStream(entry)
                : loader == null ? ClassLoader.getSystemResourceAsStream(name) : loader.getResourceAsStream(name);
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

    /** The jar the agent's classes come from, opened once; null when they come from a directory (the agent's own tests). */
    private static final class AgentJar {
        static final JarFile FILE = open();

        private static JarFile open() {
            try {
                URL location = ClassFiles.class.getProtectionDomain().getCodeSource().getLocation();
                File file = new File(location.toURI());
                return file.isFile() ? new JarFile(file, false) : null;
            } catch (Exception | LinkageError e) { // any doubt: the class loader's way
                return null;
            }
        }
    }
}
