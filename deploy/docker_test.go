package deploy

import (
	"bufio"
	"debug/buildinfo"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/sparktest"
)

// dockerfile is the repository's Dockerfile read as instructions: each
// stage's base image, and the RUN, COPY and ENTRYPOINT lines with their
// continuation lines joined.
type dockerfile struct {
	stages []dockerStage
}

type dockerStage struct {
	from, name string
	runs       []string
	copies     []string
	entrypoint string
}

func readDockerfile(t *testing.T, path string) dockerfile {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var df dockerfile
	var cur strings.Builder
	sc := bufio.NewScanner(fh)
	flush := func() {
		line := strings.TrimSpace(cur.String())
		cur.Reset()
		if line == "" {
			return
		}
		op, arg, _ := strings.Cut(line, " ")
		arg = strings.TrimSpace(arg)
		if op == "FROM" {
			from, name, _ := strings.Cut(arg, " AS ")
			df.stages = append(df.stages, dockerStage{from: from, name: name})
			return
		}
		if len(df.stages) == 0 {
			t.Fatalf("%s: %s before FROM", path, op)
		}
		s := &df.stages[len(df.stages)-1]
		switch op {
		case "RUN":
			s.runs = append(s.runs, arg)
		case "COPY":
			s.copies = append(s.copies, arg)
		case "ENTRYPOINT":
			s.entrypoint = arg
		}
	}
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			cur.WriteString(strings.TrimSuffix(line, "\\") + " ")
			continue
		}
		cur.WriteString(line)
		flush()
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(df.stages) != 2 {
		t.Fatalf("%s: got %d stages, want a build and a runtime stage", path, len(df.stages))
	}
	return df
}

// TestDockerfile checks, without a Docker engine (none runs on the test
// machines), what the image promises: its build stage's Go is go.mod's and
// it copies what the build reads; the runtime stage is the Debian release
// of this machine and installs only packages of it: the CA certificates
// (S3, Azure, GCS and OTLP over TLS) and no JDK, since the agent's heap
// dumps and `sparkdx profile` attach to JVMs in Go; the entrypoint is the
// binary the build stage's output was copied to. TestDockerfileBuild runs
// the build command.
func TestDockerfile(t *testing.T) {
	df := readDockerfile(t, filepath.Join("..", "Dockerfile"))
	build, runtime := df.stages[0], df.stages[1]

	gomod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	if goVersion == nil || !strings.HasPrefix(build.from, "golang:"+string(goVersion[1])+"-") {
		t.Errorf("build stage FROM %s: want golang:%s-… (go.mod)", build.from, goVersion[1])
	}

	_, imageBin := buildCommand(t, build)
	// Everything the build reads is copied into the build stage (and not
	// excluded by .dockerignore): the packages and the embedded docs.
	copied := strings.Join(build.copies, " ")
	for _, dir := range []string{"go.mod", "cmd", "internal", "docs"} {
		if !strings.Contains(copied, dir) {
			t.Errorf("build stage copies %q: want %s copied", copied, dir)
		}
	}
	ignore, err := os.ReadFile(filepath.Join("..", ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(ignore), "\n") {
		if l = strings.TrimSpace(l); slices.Contains([]string{"cmd", "internal", "docs", "go.mod", "go.sum"}, l) {
			t.Errorf(".dockerignore excludes %s, which the build needs", l)
		}
	}

	if want := "[\"" + "/usr/local/bin/sparkdx" + "\"]"; runtime.entrypoint != want ||
		!slices.ContainsFunc(runtime.copies, func(c string) bool { return c == "--from=build "+imageBin+" /usr/local/bin/sparkdx" }) {
		t.Errorf("runtime stage: ENTRYPOINT %s, COPY %v: want the build's %s as /usr/local/bin/sparkdx", runtime.entrypoint, runtime.copies, imageBin)
	}

	// The runtime packages are checked against this machine's Debian: the
	// image's release must be it.
	osRelease, err := os.ReadFile("/etc/os-release")
	if err != nil {
		sparktest.Missing(t, "/etc/os-release")
	}
	codename := regexp.MustCompile(`(?m)^VERSION_CODENAME=(\w+)`).FindSubmatch(osRelease)
	if codename == nil || runtime.from != "debian:"+string(codename[1])+"-slim" {
		t.Fatalf("runtime FROM %s: want debian:%s-slim, this machine's release, to check its packages here", runtime.from, codename[1])
	}
	var pkgs []string
	for _, r := range runtime.runs {
		if _, after, ok := strings.Cut(r, "apt-get install -y --no-install-recommends "); ok {
			pkgs = strings.Fields(strings.Split(after, "&&")[0])
		}
	}
	if !slices.Contains(pkgs, "ca-certificates") {
		t.Errorf("runtime stage installs %v: want ca-certificates (TLS to object stores and OTLP)", pkgs)
	}
	for _, p := range pkgs {
		if strings.Contains(p, "jdk") || strings.Contains(p, "jre") {
			t.Errorf("runtime stage installs %s: the agent and profile attach in Go; no JDK belongs in the image", p)
		}
		// Each package is one of this release's: installed here.
		if out, err := exec.Command("dpkg-query", "-W", "-f", "${Status}", p).CombinedOutput(); err != nil || !strings.Contains(string(out), "install ok installed") {
			sparktest.Missing(t, "Debian package "+p+" on this machine: "+string(out))
		}
	}
	// The package is what builds the bundle Go's crypto/x509 reads first
	// on Debian (/etc/ssl/certs/ca-certificates.crt).
	if out, err := exec.Command("dpkg-query", "-L", "ca-certificates").Output(); err != nil || !strings.Contains(string(out), "/usr/sbin/update-ca-certificates") {
		t.Errorf("dpkg-query -L ca-certificates: %v: want update-ca-certificates, which writes the bundle", err)
	}
}

// TestDockerBuild builds the image where a Docker engine answers (CI
// machines with one; none runs on the test machines, where TestDockerfile
// checks the file instead) and runs what the chart runs in it: the
// binary as entrypoint, with the CA bundle its TLS clients read.
func TestDockerBuild(t *testing.T) {
	docker, err := exec.LookPath("docker")
	if err != nil {
		t.Skip("skipping: no docker client (TestDockerfile checks the Dockerfile)")
	}
	if out, err := exec.Command(docker, "info", "--format", "{{.ServerVersion}}").CombinedOutput(); err != nil {
		t.Skipf("skipping: no Docker engine answers (TestDockerfile checks the Dockerfile): %s", strings.TrimSpace(string(out)))
	}
	tag := "sparkdx-test:" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	build := exec.Command(docker, "build", "-t", tag, ".")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("docker build: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command(docker, "rmi", "-f", tag).Run() })
	for _, argv := range [][]string{
		{"run", "--rm", tag, "version"},
		{"run", "--rm", "--entrypoint", "test", tag, "-s", "/etc/ssl/certs/ca-certificates.crt"},
	} {
		out, err := exec.Command(docker, argv...).CombinedOutput()
		if err != nil {
			t.Errorf("docker %s: %v\n%s", strings.Join(argv, " "), err, out)
		}
	}
}

// buildCommand is the build stage's go build command and the path it
// writes the binary to.
func buildCommand(t *testing.T, build dockerStage) (cmd, out string) {
	t.Helper()
	for _, r := range build.runs {
		if strings.Contains(r, "go build") {
			cmd = r
		}
	}
	m := regexp.MustCompile(`-o (\S+) `).FindStringSubmatch(cmd)
	if m == nil || !strings.Contains(cmd, "CGO_ENABLED=0") {
		t.Fatalf("build RUN %q: want CGO_ENABLED=0 go build -o OUT ./cmd/sparkdx", cmd)
	}
	return cmd, m[1]
}

// TestDockerfileBuild: the build stage's command makes a static binary
// that runs. The binary `make build` made for the whole test run
// (sparktest.Binary) is that command's when its build settings are the
// command's (the Makefile runs the same command); otherwise the command
// runs here as written.
func TestDockerfileBuild(t *testing.T) {
	buildCmd, imageBin := buildCommand(t, readDockerfile(t, filepath.Join("..", "Dockerfile")).stages[0])
	bin := sparktest.Binary(t)
	if info, err := buildinfo.ReadFile(bin); err != nil || !builtBy(buildCmd, info) {
		bin = filepath.Join(t.TempDir(), "sparkdx")
		cmd := exec.Command("sh", "-c", strings.Replace(buildCmd, "-o "+imageBin+" ", "-o "+bin+" ", 1))
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", buildCmd, err, out)
		}
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s: has a program interpreter: not a static binary", bin)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s: links %v: not a static binary", bin, libs)
	}
	if strings.Contains(buildCmd, "-ldflags=-s") && f.Section(".symtab") != nil {
		t.Errorf("%s: has a symbol table: not built with %s", bin, buildCmd)
	}
	if out, err := exec.Command(bin, "--version").CombinedOutput(); err != nil || !strings.Contains(string(out), "sparkdx") {
		t.Errorf("%s --version: %v: %s", bin, err, out)
	}
}

// builtBy reports whether a binary's build information is what cmd (VAR=V
// ... go build [-trimpath] [-ldflags=F] -o OUT ./cmd/sparkdx) records:
// the same environment settings, flags and main package, and no other
// flag.
func builtBy(cmd string, info *buildinfo.BuildInfo) bool {
	got := map[string]string{}
	for _, s := range info.Settings {
		got[s.Key] = s.Value
	}
	want := map[string]string{"-trimpath": "", "-ldflags": "", "-tags": "", "-gcflags": ""}
	f := strings.Fields(cmd)
	for len(f) > 0 && strings.Contains(f[0], "=") {
		k, v, _ := strings.Cut(f[0], "=")
		want[k], f = v, f[1:]
	}
	if len(f) < 2 || f[0] != "go" || f[1] != "build" {
		return false
	}
	for i := 2; i < len(f); i++ {
		switch a := f[i]; {
		case a == "-o":
			i++
		case a == "-trimpath":
			want["-trimpath"] = "true"
		case strings.HasPrefix(a, "-ldflags="):
			want["-ldflags"] = strings.Trim(strings.TrimPrefix(a, "-ldflags="), `"'`)
		case a == "./cmd/sparkdx":
			if info.Path != "github.com/sparkdx/sparkdx/cmd/sparkdx" {
				return false
			}
		default:
			return false
		}
	}
	if want["-trimpath"] == "true" {
		// Go leaves -ldflags out of the build information of a -trimpath
		// build (it may hold paths); TestDockerfileBuild checks -s on the
		// binary itself (no symbol table).
		delete(want, "-ldflags")
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// TestBuiltBy: a binary's build information matches the Dockerfile's
// command only with the same environment, flags and main package.
func TestBuiltBy(t *testing.T) {
	cmd := "CGO_ENABLED=0 go build -trimpath -ldflags=-s -o /out/sparkdx ./cmd/sparkdx"
	info := func(kv ...string) *buildinfo.BuildInfo {
		bi := &buildinfo.BuildInfo{Path: "github.com/sparkdx/sparkdx/cmd/sparkdx"}
		for i := 0; i+1 < len(kv); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return bi
	}
	// A -trimpath build records no -ldflags.
	made := info("CGO_ENABLED", "0", "-trimpath", "true", "vcs.revision", "abc")
	for _, c := range []struct {
		name string
		cmd  string
		bi   *buildinfo.BuildInfo
		want bool
	}{
		{"make build", cmd, made, true},
		{"cgo on", cmd, info("CGO_ENABLED", "1", "-trimpath", "true"), false},
		{"no -trimpath", cmd, info("CGO_ENABLED", "0", "-ldflags", "-s"), false},
		{"other ldflags, without -trimpath", "CGO_ENABLED=0 go build -ldflags=-s -o /out/sparkdx ./cmd/sparkdx",
			info("CGO_ENABLED", "0", "-ldflags", "-s -w"), false},
		{"same ldflags, without -trimpath", "CGO_ENABLED=0 go build -ldflags=-s -o /out/sparkdx ./cmd/sparkdx",
			info("CGO_ENABLED", "0", "-ldflags", "-s"), true},
		{"extra tags", cmd, info("CGO_ENABLED", "0", "-trimpath", "true", "-tags", "x"), false},
		{"other package", cmd, &buildinfo.BuildInfo{Path: "example.com/x", Settings: made.Settings}, false},
		{"flag the check does not know", "CGO_ENABLED=0 go build -race -o /out/sparkdx ./cmd/sparkdx", made, false},
		{"not go build", "CGO_ENABLED=0 make", made, false},
	} {
		if got := builtBy(c.cmd, c.bi); got != c.want {
			t.Errorf("%s: builtBy %v, want %v", c.name, got, c.want)
		}
	}
}
