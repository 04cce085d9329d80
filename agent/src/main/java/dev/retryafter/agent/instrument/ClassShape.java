package dev.retryafter.agent.instrument;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;

/**
 * The methods a class file declares, as {@code name + descriptor} ({@code "run()V"}), read straight
 * from its bytes: enough to tell a relocated copy of a client class from an unrelated class that
 * shares its name's end, before anything is woven, and without Byte Buddy or ASM (a run whose
 * changed classes all come from the {@link ClassCache} loads neither).
 */
final class ClassShape {

    private ClassShape() {
    }

    /** Every method {@code bytes} declares, constructors included ({@code "<init>(...)V"}). */
    static Set<String> methods(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort(); // minor
        in.readUnsignedShort(); // major
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1: // Utf8
                    utf8[i] = in.readUTF();
                    break;
                case 7: case 8: case 16: case 19: case 20: // Class, String, MethodType, Module, Package
                    in.skipBytes(2);
                    break;
                case 15: // MethodHandle
                    in.skipBytes(3);
                    break;
                case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18: // Integer .. InvokeDynamic
                    in.skipBytes(4);
                    break;
                case 5: case 6: // Long, Double: two slots
                    in.skipBytes(8);
                    i++;
                    break;
                default:
                    throw new IOException("constant pool tag " + tag);
            }
        }
        in.skipBytes(6); // access, this, super
        in.skipBytes(2 * in.readUnsignedShort()); // interfaces
        skipMembers(in); // fields
        int methods = in.readUnsignedShort();
        Set<String> declared = new HashSet<>();
        for (int m = 0; m < methods; m++) {
            in.skipBytes(2); // access
            declared.add(utf8[in.readUnsignedShort()] + utf8[in.readUnsignedShort()]);
            skipAttributes(in);
        }
        return declared;
    }

    private static void skipMembers(DataInputStream in) throws IOException {
        for (int n = in.readUnsignedShort(); n > 0; n--) {
            in.skipBytes(6);
            skipAttributes(in);
        }
    }

    private static void skipAttributes(DataInputStream in) throws IOException {
        for (int n = in.readUnsignedShort(); n > 0; n--) {
            in.skipBytes(2);
            int length = in.readInt();
            if (in.skipBytes(length) != length) {
                throw new IOException("cut short");
            }
        }
    }
}
