// Population builds a known set of objects, prints "ready" and idles so that
// a class histogram and a heap dump taken one after the other see the same heap.
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

public class Population {
    static class Point { int x, y; Point(int x, int y) { this.x = x; this.y = y; } }
    static class Wide { long l; byte b; Object ref; double d; short s; char c; boolean z; float f; }
    static class Base { long l; byte b; }
    static class Derived extends Base { byte c; int d; Object o; }
    static class Empty {}
    class Inner { int v = 1; }
    record Pair(String left, long right) {}
    enum Color { RED, GREEN, BLUE }
    static class Statics {
        static long sl = 1; static int si = 2; static byte sb = 3; static Object so = new Object();
        static boolean sz; static short ss; static double sd; static String sstr = "s";
    }

    static final List<Object> keep = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        Population outer = new Population();
        for (int i = 0; i < n; i++) {
            keep.add(new Point(i, -i));
            keep.add(new Wide());
            keep.add(new Derived());
            keep.add(new Empty());
            keep.add(outer.new Inner());
            keep.add(new Pair("p" + (i % 7), i));
            keep.add(new String("duplicate-" + (i % 10)));
            keep.add(new String(new char[] {'\u4e2d', (char) ('a' + i % 5)}));
            final int k = i;
            IntSupplier s = () -> k;
            keep.add(s);
        }
        for (int len : new int[] {0, 1, 3, 7, 100, 1000}) {
            keep.add(new boolean[len]);
            keep.add(new char[len]);
            keep.add(new byte[len]);
            keep.add(new short[len]);
            keep.add(new int[len]);
            keep.add(new long[len]);
            keep.add(new float[len]);
            keep.add(new double[len]);
            keep.add(new Object[len]);
            keep.add(new String[len]);
            keep.add(new Point[len]);
            keep.add(new int[len][2]);
            keep.add(new long[2][len][1]);
        }
        keep.add(Color.GREEN);
        keep.add(Statics.so);
        keep.add(Statics.sstr);
        keep.add(new byte[4 << 20]);
        System.gc();
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        while (true) {
            Thread.sleep(60_000);
        }
    }
}
