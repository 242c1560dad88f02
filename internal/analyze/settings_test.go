package analyze

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
)

func TestSameSetting(t *testing.T) {
	for _, c := range []struct {
		key, a, b string
		same      bool
	}{
		{"spark.sql.autoBroadcastJoinThreshold", "10m", "10485760b", true},
		{"spark.sql.autoBroadcastJoinThreshold", "-1", "10m", false},
		{"spark.executor.memory", "1g", "1024m", true},
		{"spark.memory.fraction", "0.6", "0.60", true},
		{"spark.memory.fraction", "0.05", "0.6", false},
		{"spark.sql.adaptive.enabled", "TRUE", "true", true},
		{"spark.serializer", "org.apache.spark.serializer.KryoSerializer", "org.apache.spark.serializer.JavaSerializer", false},
		{"spark.sql.shuffle.partitions", "4", "8", false},
	} {
		if got := SameSetting(c.key, c.a, c.b); got != c.same {
			t.Errorf("SameSetting(%s, %q, %q) = %v, want %v", c.key, c.a, c.b, got, c.same)
		}
	}
}

// TestSettingsDefaults: unset properties get Spark's default for the
// version (adaptive execution is on from 3.2), set ones keep their value.
func TestSettingsDefaults(t *testing.T) {
	env := &model.Environment{SparkProperties: [][2]string{{"spark.sql.shuffle.partitions", " 8 "}}}
	for _, c := range []struct {
		version, aqe string
	}{{"3.1.3", "false"}, {"3.2.0", "true"}, {"4.0.0-SNAPSHOT", "true"}, {"", "false"}} {
		got := map[string]Setting{}
		for _, s := range settings(env, c.version) {
			got[s.Key] = s
		}
		if s := got["spark.sql.adaptive.enabled"]; s.Value != c.aqe || !s.Default {
			t.Errorf("%s: adaptive execution %+v, want default %s", c.version, s, c.aqe)
		}
		if s := got["spark.sql.shuffle.partitions"]; s.Value != "8" || s.Default {
			t.Errorf("%s: shuffle partitions %+v, want 8 as set", c.version, s)
		}
	}
}
