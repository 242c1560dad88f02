import org.apache.spark.sql.api.java.UDF1;

// BusyUDF is a CPU-heavy Java UDF for the per-stage profile scenario: its
// own loop is where a profile of its stage must put the time.
public class BusyUDF implements UDF1<Long, Long> {
    @Override
    public Long call(Long x) {
        long v = x;
        for (int i = 0; i < 20_000; i++) {
            v = v * 6364136223846793005L + 1442695040888963407L;
        }
        return v;
    }
}
