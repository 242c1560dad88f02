// Idle prints "ready" and then burns CPU in a named method until its
// stdin closes, so that a profiler has a known frame to find.
public class Idle {
    static volatile long sink;

    static long spin(long n) {
        long x = n;
        for (int i = 0; i < 1_000_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    public static void main(String[] args) throws Exception {
        Thread worker = new Thread(() -> {
            long n = 0;
            while (true) {
                sink = spin(n++);
            }
        }, "Executor task launch worker for task 3.0 in stage 1.0 (TID 4)");
        worker.setDaemon(true);
        worker.start();
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() >= 0) {
        }
    }
}
