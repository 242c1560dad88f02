import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

// Workload is the JVM that the hsperf tests read. It reads commands from stdin
// and answers each with "ok" once done, so the test knows the JVM is idle:
//   threads N   start N daemon threads that park forever
//   alloc MB    allocate MB megabytes of garbage, retaining every 8th array
//   classes N   define N generated classes in a fresh class loader
//   drop        forget retained arrays and class loaders
//   gc          System.gc()
public class Workload {
    static final List<Object> retained = new ArrayList<>();
    static final List<ClassLoader> loaders = new ArrayList<>();
    static int generated;

    // Gen defines classes from bytes written here, so that class loading
    // and unloading do not depend on anything on the class path.
    static final class Gen extends ClassLoader {
        Gen() { super(Workload.class.getClassLoader()); }
        Class<?> define(String name) {
            byte[] b = classFile(name);
            return defineClass(name, b, 0, b.length);
        }
    }

    // classFile builds the smallest valid class: public class NAME extends Object.
    static byte[] classFile(String name) {
        java.io.ByteArrayOutputStream bo = new java.io.ByteArrayOutputStream();
        java.io.DataOutputStream o = new java.io.DataOutputStream(bo);
        try {
            o.writeInt(0xCAFEBABE);
            o.writeShort(0);
            o.writeShort(52);
            o.writeShort(5);
            o.writeByte(1); o.writeUTF(name.replace('.', '/'));
            o.writeByte(7); o.writeShort(1);
            o.writeByte(1); o.writeUTF("java/lang/Object");
            o.writeByte(7); o.writeShort(3);
            o.writeShort(0x21);
            o.writeShort(2);
            o.writeShort(4);
            o.writeShort(0);
            o.writeShort(0);
            o.writeShort(0);
            o.writeShort(0);
        } catch (java.io.IOException e) {
            throw new RuntimeException(e);
        }
        return bo.toByteArray();
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("ok");
        System.out.flush();
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.trim().split("\\s+");
            int n = f.length > 1 ? Integer.parseInt(f[1]) : 0;
            switch (f[0]) {
                case "threads":
                    for (int i = 0; i < n; i++) {
                        Thread t = new Thread(() -> { for (;;) LockSupport.park(); }, "parked-" + i);
                        t.setDaemon(true);
                        t.start();
                    }
                    break;
                case "alloc":
                    long sink = 0;
                    for (int i = 0; i < n * 16; i++) {
                        byte[] b = new byte[64 * 1024];
                        sink += b.length;
                        if (i % 8 == 0) retained.add(b);
                    }
                    if (sink < 0) System.out.println(sink);
                    break;
                case "classes":
                    Gen g = new Gen();
                    for (int i = 0; i < n; i++) g.define("gen.C" + (generated++));
                    loaders.add(g);
                    break;
                case "drop":
                    retained.clear();
                    loaders.clear();
                    break;
                case "gc":
                    System.gc();
                    break;
                default:
                    System.out.println("unknown command " + f[0]);
            }
            System.out.println("ok");
            System.out.flush();
        }
    }
}
