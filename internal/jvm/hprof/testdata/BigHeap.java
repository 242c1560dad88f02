// BigHeap fills the heap with a Spark-driver-like mix (maps of small objects,
// strings, byte[] buffers, object arrays) until about the requested number
// of megabytes is live, prints "ready PID" and idles; the benchmark dumps it.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class BigHeap {
    static final class Row { long id; int partition; double value; String key; Object payload; }

    public static void main(String[] args) throws Exception {
        long target = Long.parseLong(args[0]) << 20;
        List<Object> keep = new ArrayList<>();
        Map<String, Row> index = new HashMap<>();
        long approx = 0;
        for (long i = 0; approx < target; i++) {
            Row r = new Row();
            r.id = i;
            r.partition = (int) (i % 200);
            r.value = i * 0.5;
            r.key = "key-" + (i % 50_000);
            r.payload = (i % 16 == 0) ? new byte[1024] : new int[4];
            index.put("row-" + i, r);
            approx += 40 + 48 + 56 + 48 + ((i % 16 == 0) ? 1040 : 32);
            if (i % 1000 == 0) {
                keep.add(new Object[64]);
                approx += 272;
            }
        }
        keep.add(index);
        System.gc();
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        while (true) {
            Thread.sleep(60_000);
        }
    }
}
