package redact

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestProperty lists each secret shape a property may hold, and values
// that must be kept.
func TestProperty(t *testing.T) {
	r := Default()
	for _, c := range []struct {
		key, value, want string
	}{
		// Spark's default regex, key or value.
		{"spark.hadoop.fs.s3a.secret.key", "abc", Replacement},
		{"spark.hadoop.fs.s3a.access.key", "AKIAXXXX", Replacement},
		{"spark.hadoop.fs.s3a.accesskey", "AKIAXXXX", Replacement},
		{"spark.hadoop.fs.s3a.session.token", "FwoGZX", Replacement},
		{"javax.jdo.option.ConnectionPassword", "hive", Replacement},
		{"spark.databricks.credential", "dapi123", Replacement},
		{"spark.driver.extraJavaOptions", "-Ddb.password=hunter2", Replacement},
		// Cloud credentials Spark's default misses.
		{"spark.hadoop.fs.azure.account.key.acct.blob.core.windows.net", "base64==", Replacement},
		{"spark.hadoop.fs.azure.sas.container.acct.blob.core.windows.net", "sv=2020&sig=x", Replacement},
		{"spark.hadoop.fs.gs.auth.service.account.private.key", "-----BEGIN PRIVATE KEY-----", Replacement},
		{"spark.hadoop.fs.gs.auth.service.account.private.key.id", "0123abcd", Replacement},
		{"spark.openai.api_key", "sk-1", Replacement},
		// A password inside a URL: the password only.
		{"javax.jdo.option.ConnectionURL", "jdbc:mysql://hive:hunter2@db:3306/metastore",
			"jdbc:mysql://hive:" + Replacement + "@db:3306/metastore"},
		{"spark.hadoop.fs.defaultFS", "hdfs://namenode:8020", "hdfs://namenode:8020"},
		// Kept.
		{"spark.app.name", "nightly etl", "nightly etl"},
		{"spark.executor.memory", "4g", "4g"},
		{"spark.redaction.regex", "(?i)secret|password", "(?i)secret|password"},
		{"spark.hadoop.fs.s3a.secret.key", Replacement, Replacement},
		// Issue 31: neither key nor value matches Spark's regex, and a
		// mount list is no assignment: shown whole, as the History Server does.
		{"spark.kubernetes.executor.podTemplateMounts", "/etc/passwd:/etc/passwd:ro,/etc/group:/etc/group:ro",
			"/etc/passwd:/etc/passwd:ro,/etc/group:/etc/group:ro"},
	} {
		if got := r.Property(c.key, c.value); got != c.want {
			t.Errorf("Property(%q, %q) = %q, want %q", c.key, c.value, got, c.want)
		}
	}
}

// TestText lists free-text secrets (job descriptions, SQL texts, error
// messages) and text that must stay as it is.
func TestText(t *testing.T) {
	r := Default()
	red := Replacement
	for _, c := range []struct{ in, want string }{
		{"load with password=hunter2 from db", "load with password=" + red + " from db"},
		{"jdbc:postgresql://db/x?user=etl&password=hunter2&ssl=true", "jdbc:postgresql://db/x?user=etl&password=" + red + "&ssl=true"},
		{"jdbc:sqlserver://db;user=etl;password=hunter2;", "jdbc:sqlserver://db;user=etl;password=" + red + ";"},
		{`{"token": "eyJhbGci"}`, `{"token": ` + red + `}`},
		{"api_key: sk-123 used", "api_key: " + red + " used"},
		{"DB_PASSWORD=x ./run", "DB_PASSWORD=" + red + " ./run"},
		{"CREATE TABLE t USING jdbc OPTIONS (url 'x', password 'hunter2')", "CREATE TABLE t USING jdbc OPTIONS (url 'x', password " + red + ")"},
		{"copy s3a://AKIA:wJalr@bucket/key", "copy s3a://AKIA:" + red + "@bucket/key"},
		{"Failed to connect to jdbc:mysql://root:toor@10.0.0.1/db", "Failed to connect to jdbc:mysql://root:" + red + "@10.0.0.1/db"},
		// Kept: prose, columns, URLs without a password, e-mail addresses.
		{"the password is checked later", "the password is checked later"},
		{"SELECT key, value FROM kv WHERE key = 3", "SELECT key, value FROM kv WHERE key = 3"},
		{"collect at etl.py:42", "collect at etl.py:42"},
		{"hdfs://nn:8020/user/etl@corp/out", "hdfs://nn:8020/user/etl@corp/out"},
		{"mail ops@example.com", "mail ops@example.com"},
		{"password=" + red, "password=" + red},
		{"", ""},
		// Paths are not assignments (issue 31): a container's mount list, a
		// secrets directory. Secrets around them are still found.
		{"/etc/passwd:/etc/passwd:ro,/etc/group:/etc/group:ro", "/etc/passwd:/etc/passwd:ro,/etc/group:/etc/group:ro"},
		{"/run/secrets/token:/var/run/token:ro", "/run/secrets/token:/var/run/token:ro"},
		{`C:\keys\api_key=1`, `C:\keys\api_key=1`},
		{"/etc/passwd:/etc/passwd:ro password=hunter2", "/etc/passwd:/etc/passwd:ro password=" + red},
		{"mount /etc/passwd:/x jdbc:mysql://u:pw@db/x", "mount /etc/passwd:/x jdbc:mysql://u:" + red + "@db/x"},
		{"token: abc /data/x", "token: " + red + " /data/x"},
	} {
		if got := r.Text(c.in); got != c.want {
			t.Errorf("Text(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if got := r.Text(r.Text(c.in)); got != c.want {
			t.Errorf("Text twice (%q) = %q: not idempotent", c.in, got)
		}
	}
}

// TestURLs: plans keep their column assignments, lose URL passwords.
func TestURLs(t *testing.T) {
	r := Default()
	plan := "Scan JDBCRelation(jdbc:mysql://u:p@h/db) [token#1] PushedFilters: [EqualTo(token,abc)]"
	want := "Scan JDBCRelation(jdbc:mysql://u:" + Replacement + "@h/db) [token#1] PushedFilters: [EqualTo(token,abc)]"
	if got := r.URLs(plan); got != want {
		t.Errorf("URLs:\n got %q\nwant %q", got, want)
	}
}

// TestForApp: an application's own spark.redaction.regex applies on top
// of the server's; an invalid one is ignored.
func TestForApp(t *testing.T) {
	r := Default()
	app := r.ForApp([][2]string{{"spark.redaction.regex", "(?i)internal[.]id"}})
	if got := app.Property("spark.internal.id", "42"); got != Replacement {
		t.Errorf("app regex: got %q, want redacted", got)
	}
	if got := app.Property("spark.hadoop.fs.s3a.secret.key", "x"); got != Replacement {
		t.Errorf("server regex under the app's: got %q, want redacted", got)
	}
	if bad := r.ForApp([][2]string{{"spark.redaction.regex", "(["}}); bad != r {
		t.Error("an invalid app regex should leave the server's rules")
	}
	custom, err := New("(?i)mysecretprop")
	if err != nil {
		t.Fatal(err)
	}
	if got := custom.Property("spark.mysecretprop", "v"); got != Replacement {
		t.Errorf("custom regex: got %q", got)
	}
	if got := custom.Property("spark.hadoop.fs.azure.account.key.a", "v"); got != Replacement {
		t.Errorf("cloud keys apply under any regex: got %q", got)
	}
	if _, err := New("(["); err == nil || !strings.Contains(err.Error(), "redaction regex") {
		t.Errorf("New(bad) error = %v", err)
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"password=x", "jdbc:mysql://a:b@c/d", "token: 'x'", "key = 3"} {
		f.Add(s)
	}
	r := Default()
	f.Fuzz(func(t *testing.T, s string) {
		once := r.Text(s)
		if twice := r.Text(once); twice != once {
			t.Errorf("Text not idempotent on %q: %q then %q", s, once, twice)
		}
		if strings.Contains(s, "password=hunter2") && strings.Contains(once, "hunter2") {
			t.Errorf("Text(%q) = %q keeps the password", s, once)
		}
	})
}

func BenchmarkText(b *testing.B) {
	r := Default()
	s := strings.Repeat("collect at /home/etl/jobs/nightly.py:42 org.apache.spark.rdd.RDD.collect(RDD.scala:1049) ", 20)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		r.Text(s)
	}
}

// TestSparkDefaultMatch: the fast matcher agrees with the regexp on ASCII
// and, like Java's (?i) (Spark's), folds only ASCII case.
func TestSparkDefaultMatch(t *testing.T) {
	re := regexp.MustCompile(SparkDefault)
	for _, s := range []string{"", "spark.app.name", "spark.ssl.keyStorePassword", "PASSWORD", "my-Secret-x", "tok",
		"Token", "fs.s3a.access.key", "fs.s3a.accessXkey", "fs.s3a.ACCESS.KEY", "passwor", "spark.authenticate.secret",
		"SeCrEt", "accessKey", "spark.databricks.Credential", "credentia"} {
		if got, want := sparkDefaultMatch(s), re.MatchString(s); got != want {
			t.Errorf("%q: got %v, want %v (regexp)", s, got, want)
		}
	}
	for _, s := range []string{"\u017fecret", "to\u212aen"} { // long s, Kelvin sign: Unicode folds, Java's (?i) does not
		if sparkDefaultMatch(s) {
			t.Errorf("%q: got true, want false (ASCII-only case folding)", s)
		}
	}
}

// FuzzCloudKey: the pre-filtered cloudKey says what the regexp says, for
// any key.
func FuzzCloudKey(f *testing.F) {
	for _, k := range []string{"fs.azure.account.key.acct.blob.core.windows.net", "spark.hadoop.fs.s3a.session.token",
		"fs.azure.sas.c.a.blob.core.windows.net", "spark.executor.memory", "API-KEY", "private_Key", "\u212aey", "sas-token"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, k string) {
		if got, want := cloudKey(k), cloudKeys.MatchString(k); got != want {
			t.Errorf("cloudKey(%q) = %v, the regexp says %v", k, got, want)
		}
	})
}

// BenchmarkEnvironment redacts the properties of a real Spark 3 event
// log's environment (Spark, Hadoop, system and metrics properties: the
// bulk of a small log's redaction work).
func BenchmarkEnvironment(b *testing.B) {
	dir := os.Getenv("SPARKDX_TESTDATA")
	if dir == "" {
		dir = "../../../shared/testdata"
	}
	raw, err := os.ReadFile(filepath.Join(dir, "spark", "spark-events", "application_1628109047826_1317105"))
	if err != nil {
		b.Skip(err)
	}
	var props [][2]string
	for line := range strings.Lines(string(raw)) {
		if !strings.Contains(line, `"Event":"SparkListenerEnvironmentUpdate"`) {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			b.Fatal(err)
		}
		for _, group := range []string{"Spark Properties", "Hadoop Properties", "System Properties", "Metrics Properties"} {
			m, _ := ev[group].(map[string]any)
			for k, v := range m {
				s, _ := v.(string)
				props = append(props, [2]string{k, s})
			}
		}
	}
	if len(props) < 100 {
		b.Fatalf("%d properties", len(props))
	}
	r := Default()
	work := make([][2]string, len(props))
	b.ReportAllocs()
	for b.Loop() {
		copy(work, props)
		r.Properties(work)
	}
	b.ReportMetric(float64(len(props)), "props")
}

// asciiLower lower-cases A-Z only, as Java's (?i) without UNICODE_CASE.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// FuzzContainsAnyFold: the one-pass matcher finds a word exactly where
// looking for each word in the ASCII-lower-cased text does.
func FuzzContainsAnyFold(f *testing.F) {
	for _, s := range []string{"", "PassWord=x", "x-API-KEY", "tok", "tokEN", "@pwd", "[KEY]", "\u212aey", "credentia",
		"spark.hadoop.fs.s3a.ACCESS.key", "`secret`", "{sas}", "\xdaey"} {
		f.Add(s)
	}
	words := [][]string{{"pass", "pwd", "token", "secret", "key", "credential"}, {"key", "sas", "token"},
		{"secret", "password", "token", "accesskey", "access.key", "credential"}}
	f.Fuzz(func(t *testing.T, s string) {
		for _, ws := range words {
			want := false
			for _, w := range ws {
				want = want || strings.Contains(asciiLower(s), w)
			}
			if got := containsAnyFold(s, ws); got != want {
				t.Errorf("containsAnyFold(%q, %q) = %v, want %v", s, ws, got, want)
			}
		}
	})
}
