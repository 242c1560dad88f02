// Retention builds object graphs whose retained sizes and paths to GC roots
// are known, prints "ready PID" and idles:
//   - a chain of Node objects held by a static field, each node holding a
//     byte array of its own (the head retains the whole chain);
//   - a HashMap of byte arrays held by a thread local of a thread named
//     "holder" (reached through Thread.threadLocals and the map entry's
//     value, never its weak key);
//   - Tracked objects each referenced by a WeakReference registered with a
//     ReferenceQueue and also held strongly by a static array, so that the
//     only strong path to each runs through the array.
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

public class Retention {
    static final class Node {
        Node next;
        byte[] payload;
        Node(Node next, int size) { this.next = next; this.payload = new byte[size]; }
    }
    static final class Tracked { long id; Tracked(long id) { this.id = id; } }

    static Node chain;
    static final ThreadLocal<Map<String, byte[]>> local = new ThreadLocal<>();
    static final ReferenceQueue<Object> queue = new ReferenceQueue<>();
    static final List<WeakReference<Tracked>> weakRefs = new ArrayList<>();
    static Tracked[] strongHeld;

    public static void main(String[] args) throws Exception {
        build(args); // in a method of its own: no local variable of main holds what it built
        System.gc();
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        while (true) {
            Thread.sleep(60_000);
        }
    }

    static void build(String[] args) throws InterruptedException {
        int chainLength = Integer.parseInt(args[0]);
        int payload = Integer.parseInt(args[1]);
        int mapEntries = Integer.parseInt(args[2]);
        int mapValue = Integer.parseInt(args[3]);
        int tracked = Integer.parseInt(args[4]);
        Node head = null;
        for (int i = 0; i < chainLength; i++) {
            head = new Node(head, payload);
        }
        chain = head;
        CountDownLatch filled = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            Map<String, byte[]> m = new HashMap<>();
            for (int i = 0; i < mapEntries; i++) {
                m.put("key-" + i, new byte[mapValue]);
            }
            local.set(m);
            m = null;
            filled.countDown();
            while (true) {
                try { Thread.sleep(60_000); } catch (InterruptedException e) { return; }
            }
        }, "holder");
        holder.setDaemon(true);
        holder.start();
        filled.await();
        strongHeld = new Tracked[tracked];
        for (int i = 0; i < tracked; i++) {
            strongHeld[i] = new Tracked(i);
            weakRefs.add(new WeakReference<>(strongHeld[i], queue));
        }
    }
}
