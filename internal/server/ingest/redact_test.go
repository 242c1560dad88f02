package ingest

import (
	"regexp"
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
)

// TestDefaultMatch: the fast matcher agrees with the regexp on ASCII and,
// like Java's (?i) (Spark's), folds only ASCII case.
func TestDefaultMatch(t *testing.T) {
	re := regexp.MustCompile(DefaultRedaction)
	for _, s := range []string{"", "spark.app.name", "spark.ssl.keyStorePassword", "PASSWORD", "my-Secret-x", "tok",
		"Token", "fs.s3a.access.key", "fs.s3a.accessXkey", "fs.s3a.ACCESS.KEY", "passwor", "spark.authenticate.secret",
		"SeCrEt", "accessKey"} {
		if got, want := defaultMatch(s), re.MatchString(s); got != want {
			t.Errorf("%q: got %v, want %v (regexp)", s, got, want)
		}
	}
	for _, s := range []string{"\u017fecret", "to\u212aen"} { // long s, Kelvin sign: Unicode folds, Java's (?i) does not
		if defaultMatch(s) {
			t.Errorf("%q: got true, want false (ASCII-only case folding)", s)
		}
	}
}

func TestRedact(t *testing.T) {
	cases := []struct {
		name  string
		props [][2]string
		want  [][2]string
	}{
		{"default", [][2]string{{"spark.ssl.keyPassword", "hunter2"}, {"spark.app.name", "etl"}, {"x", "my token"}},
			[][2]string{{"spark.ssl.keyPassword", Redacted}, {"spark.app.name", "etl"}, {"x", Redacted}}},
		{"app regex", [][2]string{{"spark.redaction.regex", "(?i)name"}, {"spark.app.name", "etl"}, {"spark.password", "p"}},
			[][2]string{{"spark.redaction.regex", "(?i)name"}, {"spark.app.name", Redacted}, {"spark.password", "p"}}},
	}
	in := &Ingester{cfg: Config{Redaction: regexp.MustCompile(DefaultRedaction)}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := model.NewAttempt()
			a.Env.SparkProperties = c.props
			a.Env.HadoopProperties = [][2]string{{"fs.s3a.secret.key", "abc"}}
			in.redact(a)
			for i := range c.want {
				if a.Env.SparkProperties[i] != c.want[i] {
					t.Errorf("got %v, want %v", a.Env.SparkProperties[i], c.want[i])
				}
			}
			if c.name == "default" && a.Env.HadoopProperties[0][1] != Redacted {
				t.Errorf("hadoop secret not redacted: %v", a.Env.HadoopProperties[0])
			}
		})
	}
}
