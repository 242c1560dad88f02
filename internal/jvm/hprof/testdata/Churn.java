// Churn leaves dead space in G1 old regions without a full GC (System.gc()
// runs a concurrent cycle under -XX:+ExplicitGCInvokesConcurrent), so that
// JDK 19+ fills it with filler objects; then prints "ready PID" and idles.
import java.util.ArrayList;
import java.util.List;

public class Churn {
    public static void main(String[] args) throws Exception {
        List<Object> keep = new ArrayList<>();
        for (int round = 0; round < 20; round++) {
            List<Object> tmp = new ArrayList<>();
            for (int i = 0; i < 200_000; i++) {
                tmp.add(new long[4]);
                tmp.add(new Object());
            }
            for (int i = 0; i < tmp.size(); i += 3) {
                keep.add(tmp.get(i));
            }
            System.gc();
        }
        keep.subList(0, keep.size() / 2).clear();
        System.gc();
        Thread.sleep(2000);
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        while (true) {
            Thread.sleep(60_000);
        }
    }
}
