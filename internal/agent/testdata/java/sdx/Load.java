package sdx;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;

/**
 * Load is the body of the Spark-named test JVMs: it starts what the
 * sdx.* system properties ask for, prints "ready", then obeys commands on
 * stdin until stdin closes, when it exits. Commands:
 * "fill F" holds live objects until the heap is F full;
 * "grow" allocates live objects until the JVM dies;
 * "classes N" defines N new classes;
 * "gc" runs System.gc().
 * With -Dsdx.hot=true a thread named like a task of stage 3 spends its
 * time in burn, for a profiler to find; with -Dsdx.alloc=true one named
 * like a task of stage 4 allocates garbage in churn, for an allocation
 * profile to find.
 */
public final class Load {
    static final List<Object> live = new ArrayList<>();
    static final List<Class<?>> classes = new ArrayList<>();
    static volatile long sink;

    /** burn is the hot method: a profile of a JVM with sdx.hot finds it. */
    static long burn(long n) {
        long x = n;
        for (int i = 0; i < 1_000_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    /** churn is the allocating method: 64 KiB arrays dropped at once. */
    static long churn(long n) {
        byte[] b = new byte[64 << 10];
        b[(int) (n & 0xffff)] = 1;
        return b.length;
    }

    public static void run(String[] args) throws Exception {
        Process python = null;
        String py = System.getProperty("sdx.python");
        if (py != null) {
            ProcessBuilder pb = new ProcessBuilder("python3", "-m", "pyspark.daemon");
            pb.environment().put("PYTHONPATH", py);
            pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
            pb.redirectError(ProcessBuilder.Redirect.INHERIT);
            python = pb.start();
        }
        int threads = Integer.getInteger("sdx.threads", 0);
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) { }
            }, "sdx-idle-" + i);
            t.setDaemon(i % 2 == 0);
            t.start();
        }
        if (Boolean.getBoolean("sdx.hot")) {
            Thread t = new Thread(() -> {
                for (long n = 0; ; n++) sink = burn(n);
            }, "Executor task launch worker for task 0.0 in stage 3.0 (TID 9)");
            t.setDaemon(true);
            t.start();
        }
        if (Boolean.getBoolean("sdx.alloc")) {
            Thread t = new Thread(() -> {
                for (long n = 0; ; n++) {
                    sink = churn(n);
                    if ((n & 1023) == 0) {
                        try { Thread.sleep(1); } catch (InterruptedException e) { return; }
                    }
                }
            }, "Executor task launch worker for task 1.0 in stage 4.0 (TID 10)");
            t.setDaemon(true);
            t.start();
        }
        if (Boolean.getBoolean("sdx.classloop")) {
            Thread t = new Thread(() -> {
                try {
                    while (true) { defineClasses(20); Thread.sleep(50); }
                } catch (Exception e) { throw new RuntimeException(e); }
            }, "sdx-classloop");
            t.setDaemon(true);
            t.start();
        }
        System.out.println("ready");
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.trim().split(" ");
            switch (f[0]) {
                case "fill": fill(Double.parseDouble(f[1])); break;
                case "grow": grow(); break;
                case "classes": defineClasses(Integer.parseInt(f[1])); break;
                case "gc": System.gc(); break;
                default: break;
            }
            System.out.println("done " + f[0]);
            System.out.flush();
        }
        if (python != null) python.destroy();
        System.exit(0);
    }

    static void fill(double fraction) {
        Runtime rt = Runtime.getRuntime();
        long max = rt.maxMemory();
        while (true) {
            System.gc();
            long used = rt.totalMemory() - rt.freeMemory();
            if (used >= fraction * max) return;
            long step = Math.max(64 << 10, Math.min(1 << 20, (long) (fraction * max - used) / 4));
            live.add(new byte[(int) step]);
        }
    }

    static void grow() {
        while (true) {
            byte[] b = new byte[1 << 20];
            for (int i = 0; i < b.length; i += 4096) b[i] = 1;
            live.add(b);
        }
    }

    /** Defines n new classes, each from the bytes of Blob in its own loader. */
    static synchronized void defineClasses(int n) throws Exception {
        byte[] bytes;
        try (InputStream s = Load.class.getResourceAsStream("/sdx/Blob.class")) {
            bytes = s.readAllBytes();
        }
        for (int i = 0; i < n; i++) {
            ClassLoader l = new ClassLoader(null) {
                @Override protected Class<?> findClass(String name) throws ClassNotFoundException {
                    if (!name.equals("sdx.Blob")) throw new ClassNotFoundException(name);
                    return defineClass(name, bytes, 0, bytes.length);
                }
            };
            classes.add(l.loadClass("sdx.Blob"));
        }
    }
}
