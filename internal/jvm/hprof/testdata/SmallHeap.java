// SmallHeap fills the heap with many small objects (about 100 dump bytes
// each on average: small instances holding each other, short int[] and
// Object[] and some byte[] buffers) until about the requested number of
// objects is live, prints "ready PID" and idles; the benchmark dumps it.
// Nodes also point at a random earlier node, so that many objects are held
// by more than one path and the dominator tree is not the spanning tree.
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

public class SmallHeap {
    static final class Node { long id; Node next; Node other; Object data; Object[] slots; }

    public static void main(String[] args) throws Exception {
        long target = Long.parseLong(args[0]);
        SplittableRandom rnd = new SplittableRandom(42);
        List<Node[]> chunks = new ArrayList<>();
        Node[] chunk = new Node[4096];
        Node prev = null;
        long objects = 0;
        int filled = 0;
        for (long i = 0; objects < target; i++) {
            Node n = new Node();
            n.id = i;
            n.next = prev;
            if (filled > 0) {
                n.other = chunk[rnd.nextInt(filled)];
            }
            n.data = (i % 4 == 0) ? new byte[300 + (int) (i % 64)] : new int[16];
            n.slots = new Object[6];
            n.slots[0] = n.data;
            prev = (i % 64 == 0) ? null : n;
            objects += 3;
            if (filled == chunk.length) {
                chunks.add(chunk);
                chunk = new Node[4096];
                filled = 0;
                objects++;
            }
            chunk[filled++] = n;
        }
        chunks.add(chunk);
        System.gc();
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        while (true) {
            Thread.sleep(60_000);
        }
    }
}
