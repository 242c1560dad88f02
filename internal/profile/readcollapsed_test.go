package profile

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadCollapsedRoundTrip: a profile written as collapsed stacks and
// read back writes the same file, with the same total, stages and top
// frames; two files read into one profile add up.
func TestReadCollapsedRoundTrip(t *testing.T) {
	orig := work(t, CPU)
	var first bytes.Buffer
	if err := WriteCollapsed(&first, orig); err != nil {
		t.Fatal(err)
	}
	p := &Profile{Kind: CPU}
	if err := ReadCollapsed(p, bytes.NewReader(first.Bytes()), "a"); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := WriteCollapsed(&again, p); err != nil {
		t.Fatal(err)
	}
	if again.String() != first.String() {
		t.Errorf("read back and written again:\n%s\nwant:\n%s", again.String(), first.String())
	}
	got, want := p.Stage(1).Top(3), orig.Stage(1).Top(3)
	if p.Total() != orig.Total() || len(got) != len(want) || got[0] != want[0] || !slices.Equal(p.Stages(), orig.Stages()) {
		t.Errorf("got total %d stages %v top %v, want %d %v %v", p.Total(), p.Stages(), got, orig.Total(), orig.Stages(), want)
	}
	if err := ReadCollapsed(p, bytes.NewReader(first.Bytes()), "b"); err != nil {
		t.Fatal(err)
	}
	if p.Total() != 2*orig.Total() {
		t.Errorf("two files: got total %d, want %d", p.Total(), 2*orig.Total())
	}
}

func TestReadCollapsedErrors(t *testing.T) {
	for _, in := range []string{"stage 1;A.b", "stage 1;A.b x", "A.b -3", " 5"} {
		if err := ReadCollapsed(&Profile{}, strings.NewReader(in), "f"); err == nil || !strings.Contains(err.Error(), "f line 1") {
			t.Errorf("%q: got %v, want an error naming f line 1", in, err)
		}
	}
}

// TestAppFiles: an application's CPU profiles are the collapsed and
// pprof files named by its id and a separator, not those of an id it is
// a prefix of, nor native or allocation profiles; of a recording written
// both ways, the pprof file alone.
func TestAppFiles(t *testing.T) {
	dir := t.TempDir()
	const app = "app-20261128100000-0001"
	for _, name := range []string{
		app + "-3-pid1-20261128T100000Z.cpu.collapsed", // the agent's
		app + ".collapsed", // sparkdx profile -o
		app + "-driver-pid2-20261128T100000Z.cpu.pb.gz",
		app + "-driver-pid2-20261128T100000Z.cpu.collapsed", // the same recording
		app + "-3.alloc.pb.gz",
		app + "-3.cpu.pprof",
		app + "1-3-pid1-20261128T100000Z.cpu.collapsed", // app-…-00011
		app + "-3.alloc.collapsed",
		app + "-3.native.collapsed",
		"local-1-driver.cpu.collapsed",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := AppFiles(dir, app)
	want := []string{app + "-3-pid1-20261128T100000Z.cpu.collapsed", app + "-driver-pid2-20261128T100000Z.cpu.pb.gz", app + ".collapsed"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	if got, _ := AppFiles(dir, ""); got != nil {
		t.Errorf("no application id: got %v, want none", got)
	}
}

var update = flag.Bool("update", false, "rewrite golden files")

// TestWorkCollapsedGolden: testdata/work.cpu.collapsed is the CPU profile
// of internal/jfr's recording as collapsed stacks, the real profile the
// report's and serve's tests file under an application's id.
func TestWorkCollapsedGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCollapsed(&b, work(t, CPU)); err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/work.cpu.collapsed"
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil || !bytes.Equal(b.Bytes(), want) {
		t.Errorf("%s differs from work.jfr's CPU profile (%v); refresh it with -update", golden, err)
	}
}

// TestReadAppProfilesExecutors: the samples of each agent file belong to
// the executor its name gives; a file named by the application alone
// gives none.
func TestReadAppProfilesExecutors(t *testing.T) {
	dir := t.TempDir()
	const app = "app-20261128100000-0001"
	data, err := os.ReadFile("testdata/work.cpu.collapsed")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{app + "-3-pid1-20261128T100000Z.cpu.collapsed", app + "-driver-pid2-20261128T100000Z.cpu.collapsed", app + ".collapsed"} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, _, err := ReadAppProfiles(dir, app)
	if err != nil {
		t.Fatal(err)
	}
	one := p.Total() / 3
	if got := p.Executors(); !slices.Equal(got, []string{"3", "driver"}) {
		t.Errorf("got executors %v, want [3 driver]", got)
	}
	for _, id := range []string{"3", "driver", ""} {
		if got := p.Executor(id).Total(); got != one {
			t.Errorf("executor %q: got %d samples, want %d (one file's)", id, got, one)
		}
	}
}
