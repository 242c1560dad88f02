import java.util.ArrayList;
import java.util.List;

// Work keeps a JVM busy in known methods for a profiler to find: a named
// thread computing (CPU samples), a thread allocating arrays (allocation
// samples) and main blocked reading stdin in native code (native
// samples). It prints "ready" and exits when stdin closes.
public class Work {
    static volatile long sink;
    static volatile Object keep;

    static long spin(long n) {
        long x = n;
        for (int i = 0; i < 1_000_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    static Object allocate(int i) {
        List<long[]> l = new ArrayList<>();
        for (int j = 0; j < 64; j++) {
            l.add(new long[16 + (i + j) % 256]);
        }
        return l;
    }

    public static void main(String[] args) throws Exception {
        Thread cpu = new Thread(() -> {
            long n = 0;
            while (true) {
                sink = spin(n++);
            }
        }, "Executor task launch worker for task 3.0 in stage 1.0 (TID 4)");
        Thread alloc = new Thread(() -> {
            int i = 0;
            while (true) {
                keep = allocate(i++);
            }
        }, "Executor task launch worker for task 0.0 in stage 2.0 (TID 7)");
        for (Thread t : new Thread[] {cpu, alloc}) {
            t.setDaemon(true);
            t.start();
        }
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() >= 0) {
        }
    }
}
