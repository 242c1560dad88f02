// Prints the iteration order of Scala 2.13 collections built from keys,
// for scalaorder_test.go: each line of standard input is "MODE KEY...",
// MODE set (an immutable Set of Int, keys added in order), longmap (an
// immutable Map of Long), strmap (of String) or mutable (a mutable.HashMap
// of Long); each output line lists the collection's keys as it iterates.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import scala.collection.Iterator;

public class Order {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    for (String line; (line = in.readLine()) != null; ) {
      String[] a = line.trim().split(" +");
      System.out.println(order(a));
    }
  }

  @SuppressWarnings("unchecked")
  static String order(String[] a) {
    Iterator<?> it;
    switch (a[0]) {
      case "set": {
        scala.collection.immutable.Set<Object> s = scala.collection.immutable.Set$.MODULE$.empty();
        for (int i = 1; i < a.length; i++) s = s.incl(Integer.valueOf(a[i]));
        it = s.iterator();
        break;
      }
      case "longmap": {
        scala.collection.immutable.Map<Object, Object> m = scala.collection.immutable.Map$.MODULE$.empty();
        for (int i = 1; i < a.length; i++) m = m.updated(Long.valueOf(a[i]), "v");
        it = m.keysIterator();
        break;
      }
      case "strmap": {
        scala.collection.immutable.Map<Object, Object> m = scala.collection.immutable.Map$.MODULE$.empty();
        for (int i = 1; i < a.length; i++) m = m.updated(a[i], "v");
        it = m.keysIterator();
        break;
      }
      case "mutable": {
        scala.collection.mutable.HashMap<Object, Object> m = new scala.collection.mutable.HashMap<>();
        for (int i = 1; i < a.length; i++) m.update(Long.valueOf(a[i]), "v");
        it = m.keysIterator();
        break;
      }
      default:
        throw new IllegalArgumentException(a[0]);
    }
    StringBuilder out = new StringBuilder();
    while (it.hasNext()) out.append(it.next()).append(' ');
    return out.toString().trim();
  }
}
