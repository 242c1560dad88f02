import java.util.ArrayList;
import java.util.List;

// Work keeps a JVM busy in known methods for a profiler to find: a named
// thread computing (CPU samples), a thread allocating arrays (allocation
// samples) and main blocked reading stdin in native code (native
// samples), and a pooled thread renamed per task as Spark renames its
// task threads. It prints "ready" and exits when stdin closes.
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

    static long stageFive(long n) {
        return spin(n) ^ 5;
    }

    static long stageSix(long n) {
        return spin(n) ^ 6;
    }

    // renamed runs tasks of stages 5 and 6 in turn on one pooled thread,
    // renaming it per task as Spark's executor does, 1.5 s each.
    static void renamed() {
        long n = 0;
        for (int task = 0; ; task++) {
            int stage = 5 + task % 2;
            Thread.currentThread().setName("Executor task launch worker for task " + task + ".0 in stage " + stage + ".0 (TID " + (100 + task) + ")");
            long end = System.currentTimeMillis() + 1500;
            while (System.currentTimeMillis() < end) {
                sink = stage == 5 ? stageFive(n++) : stageSix(n++);
            }
        }
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
        Thread pooled = new Thread(Work::renamed, "Executor task launch worker-0");
        for (Thread t : new Thread[] {cpu, alloc, pooled}) {
            t.setDaemon(true);
            t.start();
        }
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() >= 0) {
        }
    }
}
