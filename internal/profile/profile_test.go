package profile

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/jfr"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// work is internal/jfr's committed recording of Work.java: CPU in
// Work.spin on the thread of "task 3.0 in stage 1.0 (TID 4)", allocation in
// Work.allocate on the thread of stage 2's TID 7.
func work(t testing.TB, kind Kind) *Profile {
	data, err := os.ReadFile("../jfr/testdata/work.jfr")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := jfr.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return Build(rec, kind, nil)
}

func TestBuildStages(t *testing.T) {
	for _, tc := range []struct {
		kind    Kind
		n       int
		stage   int
		top     string
		minPart float64
	}{
		{CPU, 966, 1, "Work.spin", 0.9},
		{Alloc, 1775, 2, "Work.allocate", 0.5},
	} {
		p := work(t, tc.kind)
		if len(p.Samples) != tc.n {
			t.Errorf("%s: got %d samples, want %d", tc.kind, len(p.Samples), tc.n)
		}
		top := p.Stage(tc.stage).Top(3)
		if len(top) == 0 || top[0].Frame != tc.top || top[0].Share < tc.minPart {
			t.Errorf("%s: stage %d's top frames %+v, want %s first with at least %.0f%%", tc.kind, tc.stage, top, tc.top, 100*tc.minPart)
		}
	}
	if got := work(t, CPU).Stages(); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("CPU stages: got %v, want [1 2]", got)
	}
}

var collapsedLine = regexp.MustCompile(`^[^;\n]+(;[^;\n]+)* (\d+)$`)

func TestWriteCollapsed(t *testing.T) {
	p := work(t, Alloc)
	var b bytes.Buffer
	if err := WriteCollapsed(&b, p); err != nil {
		t.Fatal(err)
	}
	var sum int64
	spin := false
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		m := collapsedLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("line %q is not frame;frame;... value", line)
		}
		n, _ := strconv.ParseInt(m[2], 10, 64)
		sum += n
		spin = spin || strings.HasPrefix(line, "stage 2;java.lang.Thread.run;") && strings.Contains(line, ";Work.allocate")
	}
	if sum != p.Total() || !spin {
		t.Errorf("got values summing to %d (allocation in stage 2's Work.allocate: %v), want %d and a line for it", sum, spin, p.Total())
	}
}

// TestPprofTop: `go tool pprof -top` reads the file and finds the same
// totals and top frames as the profile, whole and for one stage
// (-tagfocus on the stage label).
func TestPprofTop(t *testing.T) {
	sparktest.Live(t)
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	file := filepath.Join(t.TempDir(), "cpu.pb.gz")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	p := work(t, CPU)
	if err := WritePprof(f, p); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, tc := range []struct {
		args []string
		part *Profile
	}{
		{nil, p},
		{[]string{"-tagfocus=stage=2"}, p.Stage(2)},
	} {
		out, err := exec.Command(goTool, append(append([]string{"tool", "pprof", "-top"}, tc.args...), file)...).CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof %v: %v\n%s", tc.args, err, out)
		}
		top := tc.part.Top(1)[0]
		want := regexp.MustCompile(fmt.Sprintf(`(?m)Showing nodes accounting for %d, .* of %d total\n.*\n +%d +[\d.]+%% +[\d.]+%% +\d+ +[\d.]+%% +%s$`,
			tc.part.Total(), p.Total(), top.Self, regexp.QuoteMeta(top.Frame)))
		if !want.Match(out) {
			t.Errorf("go tool pprof -top %v:\n%s\nwant %s", tc.args, out, want)
		}
	}
}

func TestWriteHTML(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, work(t, CPU), "cpu <pid 42>"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<title>cpu &lt;pid 42&gt;</title>", `["all",966,[`, `"stage 1",`, `"Work.spin",`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"src=", "href=", "@import", "http:", "https:"} {
		if strings.Contains(page, bad) {
			t.Errorf("page is not self-contained: has %q", bad)
		}
	}
}
