package redact

import (
	"slices"
	"strings"
	"testing"
)

// TestArgs lists the places a command line carries a secret — the ones
// the red-team pass of issue 32 found in the agent's /snapshot — and
// arguments that must stay as they are.
func TestArgs(t *testing.T) {
	red := Replacement
	for _, c := range []struct {
		name     string
		in, want []string
	}{
		{"system properties",
			[]string{"java", "-Dspark.hadoop.fs.s3a.secret.key=wJalrXUtnFEMI", "-Djavax.net.ssl.keyStorePassword=changeit", "-Dspark.app.name=etl"},
			[]string{"java", "-Dspark.hadoop.fs.s3a.secret.key=" + red, "-Djavax.net.ssl.keyStorePassword=" + red, "-Dspark.app.name=etl"}},
		{"conf with a URL password",
			[]string{"spark-submit", "--conf", "spark.jdbc.url=jdbc:postgresql://etl:hunter2@db:5432/x", "-c", "spark.executor.memory=4g"},
			[]string{"spark-submit", "--conf", "spark.jdbc.url=jdbc:postgresql://etl:" + red + "@db:5432/x", "-c", "spark.executor.memory=4g"}},
		{"conf= form and cloud keys",
			[]string{"--conf=spark.hadoop.fs.azure.account.key.acct.blob.core.windows.net=base64=="},
			[]string{"--conf=spark.hadoop.fs.azure.account.key.acct.blob.core.windows.net=" + red}},
		{"a value that looks secret",
			[]string{"--conf", "spark.driver.extraJavaOptions=-Ddb.password=x -Xmx1g"},
			[]string{"--conf", "spark.driver.extraJavaOptions=" + red}},
		{"secret flags",
			[]string{"python", "job.py", "--password", "hunter2", "--api-key=sk-1", "--token", "--verbose", "--out=/tmp/x"},
			[]string{"python", "job.py", "--password", red, "--api-key=" + red, "--token", "--verbose", "--out=/tmp/x"}},
		{"free text arguments",
			[]string{"python", "load.py", "jdbc:mysql://root:toor@10.0.0.1/db", "password=hunter2"},
			[]string{"python", "load.py", "jdbc:mysql://root:" + red + "@10.0.0.1/db", "password=" + red}},
		{"the application's own regex",
			[]string{"java", "-Dspark.redaction.regex=(?i)internal[.]id", "-Dspark.internal.id=42"},
			[]string{"java", "-Dspark.redaction.regex=(?i)internal[.]id", "-Dspark.internal.id=" + red}},
		{"kept",
			[]string{"/usr/lib/jvm/bin/java", "-cp", "/opt/spark/conf/:/opt/spark/jars/*", "-Xmx1g", "-XX:+UseG1GC",
				"org.apache.spark.executor.CoarseGrainedExecutorBackend", "--driver-url", "spark://CoarseGrainedScheduler@10.0.0.2:7078",
				"--executor-id", "7", "--hostname", "10.0.0.3", "--cores", "2", "--app-id", "app-20260101000000-0001",
				"--conf", "spark.kubernetes.executor.volumes=/etc/passwd:/etc/passwd:ro,/etc/group:/etc/group:ro"},
			nil},
		{"empty", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == nil {
				want = c.in
			}
			got := Default().Args(c.in)
			if !slices.Equal(got, want) {
				t.Errorf("Args(%q)\n got %q\nwant %q", c.in, got, want)
			}
			if again := Default().Args(got); !slices.Equal(again, got) {
				t.Errorf("Args not idempotent: %q then %q", got, again)
			}
		})
	}
}

// FuzzArgs: a command line redacted once stays as it is, and a password
// given as -D or --conf never survives.
func FuzzArgs(f *testing.F) {
	f.Add("java\x00-Dx.password=hunter2\x00--conf\x00a=b")
	f.Add("--token\x00t\x00--conf=spark.x=jdbc:a://u:p@h/")
	r := Default()
	f.Fuzz(func(t *testing.T, line string) {
		argv := strings.Split(line, "\x00")
		once := r.Args(argv)
		if len(once) != len(argv) {
			t.Fatalf("Args(%q) = %q: %d arguments, want %d", argv, once, len(once), len(argv))
		}
		if twice := r.Args(once); !slices.Equal(twice, once) {
			t.Errorf("Args not idempotent on %q: %q then %q", argv, once, twice)
		}
		for i, a := range argv {
			if strings.HasPrefix(a, "-Dpassword=") && len(a) > len("-Dpassword=") && once[i] != "-Dpassword="+Replacement {
				t.Errorf("Args(%q)[%d] = %q keeps the password", argv, i, once[i])
			}
		}
	})
}
