package model

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// The wants below were printed by Scala 2.13.18's collections (the
// scala-library of pyspark 4.3.0) through testdata/Order.java;
// TestScalaOrderAgainstScala checks more keys against it live.
func TestScalaOrders(t *testing.T) {
	ints := func(xs ...int) []int32 {
		out := make([]int32, len(xs))
		for i, x := range xs {
			out[i] = IntHash(x)
		}
		return out
	}
	seq := func(from, to int) []int32 {
		var out []int32
		for i := from; i <= to; i++ {
			out = append(out, IntHash(i))
		}
		return out
	}
	strs := func(xs ...string) []int32 {
		out := make([]int32, len(xs))
		for i, x := range xs {
			out[i] = StringHash(x)
		}
		return out
	}
	cases := []struct {
		name   string
		keys   []string
		hashes []int32
		order  func([]int32) []int
		want   string
	}{
		{"four ints keep their order", split("23 28 1 5"), ints(23, 28, 1, 5), ImmutableOrder, "23 28 1 5"},
		{"twelve ints", split("1 2 3 4 5 6 7 8 9 10 23 28"), ints(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 23, 28), ImmutableOrder,
			"5 10 1 6 28 9 2 7 3 23 8 4"},
		{"executor ids", split("driver 1 2 3 4 5 10"), strs("driver", "1", "2", "3", "4", "5", "10"), ImmutableOrder,
			"4 5 10 1 driver 2 3"},
		{"accumulables 1349..1408", seqNames(1349, 1408), seq(1349, 1408),
			func(h []int32) []int { return MutableHashMapOrder(h, len(h)) },
			"1408 " + strings.Join(seqNames(1349, 1407), " ")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := strings.Join(Reorder(c.keys, c.order(c.hashes)), " "); got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

func split(s string) []string { return strings.Fields(s) }

func seqNames(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, strconv.Itoa(i))
	}
	return out
}

func TestHashes(t *testing.T) {
	for _, c := range []struct {
		name string
		got  int32
		want int32
	}{
		{"String abc", StringHash("abc"), 96354},
		{"String with a surrogate pair", StringHash("a😀"), 97*31*31 + 0xD83D*31 + 0xDE00},
		{"Long in Int range", LongHash(-7), -7},
		{"Long past Int range", LongHash(1 << 40), 256},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestScalaOrderAgainstScala compares the orders with what Scala 2.13's
// own collections print (Spark 4's scala-library, through testdata/Order.java)
// for random keys of every size up to 80.
func TestScalaOrderAgainstScala(t *testing.T) {
	var home string
	for _, l := range sparktest.SparkLines(t) {
		if !strings.HasPrefix(l.Version, "3.") {
			home = l.Home
		}
	}
	jars, _ := filepath.Glob(filepath.Join(home, "jars", "scala-library-2.13*.jar"))
	javac, err := exec.LookPath("javac")
	if len(jars) == 0 || err != nil {
		sparktest.Missing(t, "javac and Spark 4's scala-library")
	}
	dir := t.TempDir()
	if out, err := exec.Command(javac, "-nowarn", "-cp", jars[0], "-d", dir, "testdata/Order.java").CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	cp := dir + string(filepath.ListSeparator) + jars[0]
	r := rand.New(rand.NewPCG(1, 2))
	type check struct {
		what, mode string
		keys       []string
		got        string
	}
	var checks []check
	for n := 2; n <= 80; n += 1 + n/8 {
		small, ints, _, _ := randomKeys(r, n, false)
		checks = append(checks, check{"Set of Ints", "set", small, strings.Join(Reorder(small, ImmutableOrder(ints)), " ")})
		names, _, longs, strs := randomKeys(r, n, true)
		checks = append(checks,
			check{"Map of Longs", "longmap", names, strings.Join(Reorder(names, ImmutableOrder(longs)), " ")},
			check{"Map of Strings", "strmap", names, strings.Join(Reorder(names, ImmutableOrder(strs)), " ")},
			check{"mutable.HashMap of Longs", "mutable", names, strings.Join(Reorder(names, MutableHashMapOrder(longs, len(longs))), " ")})
	}
	var in strings.Builder
	for _, c := range checks {
		fmt.Fprintf(&in, "%s %s\n", c.mode, strings.Join(c.keys, " "))
	}
	cmd := exec.Command("java", "-cp", cp, "Order")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java Order: %v", err)
	}
	want := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(want) != len(checks) {
		t.Fatalf("java Order printed %d lines, want %d", len(want), len(checks))
	}
	for i, c := range checks {
		if c.got != want[i] {
			t.Errorf("%s, %d keys %v: got %s, want %s", c.what, len(c.keys), c.keys, c.got, want[i])
		}
	}
}

// randomKeys draws n distinct keys, small ones (ids) and, when wide, some
// past the Int range, with their hashes as Ints, Longs and Strings.
func randomKeys(r *rand.Rand, n int, wide bool) (names []string, ints, longs, strs []int32) {
	seen := map[int64]bool{}
	for len(names) < n {
		v := r.Int64N(3000) - 50
		if wide && r.IntN(4) == 0 {
			v = r.Int64() >> r.IntN(40)
		}
		if seen[v] {
			continue
		}
		seen[v] = true
		k := strconv.FormatInt(v, 10)
		names = append(names, k)
		ints, longs, strs = append(ints, int32(v)), append(longs, LongHash(v)), append(strs, StringHash(k))
	}
	return names, ints, longs, strs
}

func TestSparkJobOrder(t *testing.T) {
	for _, c := range []struct {
		started []int
		want    string
	}{
		{[]int{3, 1, 2}, "[3 1 2]"},                // up to four: as they started
		{[]int{0, 1, 2, 3, 4, 5}, "[0 5 1 2 3 4]"}, // more: the Map's hash order (Scala 2.13.18)
	} {
		x := &SQLExecution{JobIDs: c.started}
		if got := fmt.Sprint(x.SparkJobOrder()); got != c.want {
			t.Errorf("jobs %v: got %s, want %s", c.started, got, c.want)
		}
	}
}

// TestSparkConfigOrder: a query's modified settings as Spark 4.3's History
// Server lists them (wants printed by Scala 2.13.18's immutable Map, see
// TestScalaOrderAgainstScala for the Map itself).
func TestSparkConfigOrder(t *testing.T) {
	for _, c := range []struct {
		name   string
		logged [][2]string
		want   string
	}{
		{"up to four: as logged", [][2]string{{"b", "1"}, {"a", "2"}, {"c", "3"}}, "[[b 1] [a 2] [c 3]]"},
		{"more: the keys' hash order", [][2]string{{"spark.sql.shuffle.partitions", "8"}, {"spark.sql.adaptive.enabled", "true"},
			{"fs.azure.account.key.a", "*********(redacted)"}, {"spark.r.sql.derby.temp.dir", "/tmp"}, {"spark.sql.ansi.enabled", "false"},
			{"spark.sql.session.timeZone", "UTC"}},
			"[[spark.r.sql.derby.temp.dir /tmp] [spark.sql.adaptive.enabled true] [fs.azure.account.key.a *********(redacted)] " +
				"[spark.sql.ansi.enabled false] [spark.sql.session.timeZone UTC] [spark.sql.shuffle.partitions 8]]"},
		{"a repeated key: first place, last value", [][2]string{{"b", "1"}, {"a", "2"}, {"b", "3"}}, "[[b 3] [a 2]]"},
	} {
		x := &SQLExecution{ModifiedConfigs: c.logged}
		if got := fmt.Sprint(x.SparkConfigOrder()); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}
