package profile

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/jfr"
)

func pprofBytes(t testing.TB, p *Profile) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WritePprof(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func collapsedOf(t testing.TB, p *Profile) string {
	t.Helper()
	var b strings.Builder
	if err := WriteCollapsed(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// tids are the task ids of a profile's task samples, sorted, once each.
func tids(p *Profile) []int64 {
	var out []int64
	for _, s := range p.Samples {
		if s.OnTask && !slices.Contains(out, s.Task.TID) {
			out = append(out, s.Task.TID)
		}
	}
	slices.Sort(out)
	return out
}

// TestReadPprofRoundTrip: the agent's pprof file of work.jfr read back
// has the same collapsed stacks, total, stages and task ids, and the
// executor of its executor_id label; gzipped or not.
func TestReadPprofRoundTrip(t *testing.T) {
	orig := work(t, CPU)
	orig.Labels = []Label{{"app_id", "app-1"}, {"executor_id", "3"}, {"role", "executor"}}
	gz := pprofBytes(t, orig)
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"gzipped": gz, "plain": plain} {
		t.Run(name, func(t *testing.T) {
			p := &Profile{Kind: CPU}
			if err := ReadPprof(p, bytes.NewReader(data), "f", "app-1"); err != nil {
				t.Fatal(err)
			}
			if got, want := collapsedOf(t, p), collapsedOf(t, orig); got != want {
				t.Errorf("collapsed stacks read back:\n%s\nwant:\n%s", got, want)
			}
			if p.Total() != orig.Total() || !slices.Equal(p.Stages(), orig.Stages()) || !slices.Equal(tids(p), tids(orig)) {
				t.Errorf("got total %d stages %v tids %v, want %d %v %v", p.Total(), p.Stages(), tids(p), orig.Total(), orig.Stages(), tids(orig))
			}
			if got := p.Executors(); !slices.Equal(got, []string{"3"}) || p.Executor("3").Total() != orig.Total() {
				t.Errorf("got executors %v, want [3] with every sample", got)
			}
			if len(p.Samples) >= len(orig.Samples) {
				t.Errorf("got %d samples, want fewer than the %d written: equal ones are added up", len(p.Samples), len(orig.Samples))
			}
		})
	}
}

// TestReadPprofLabels: without a stage label a sample is a task's when
// its thread's name says so; a sample of another application is left
// out.
func TestReadPprofLabels(t *testing.T) {
	st := &jfr.Stack{Frames: []jfr.Frame{{Class: "A", Method: "b", Descriptor: "()V", Line: 7}}}
	src := &Profile{Kind: CPU, Labels: []Label{{"app_id", "app-1"}}, Samples: []Sample{
		{Stack: st, Thread: "Executor task launch worker for task 3.0 in stage 7.0 (TID 9)", Value: 2},
		{Stack: st, Thread: "main", Value: 5},
	}}
	data := pprofBytes(t, src)
	for _, tc := range []struct {
		app            string
		total, onStage int64
	}{{"app-1", 7, 2}, {"", 7, 2}, {"app-2", 0, 0}} {
		p := &Profile{}
		if err := ReadPprof(p, bytes.NewReader(data), "f", tc.app); err != nil {
			t.Fatal(err)
		}
		if p.Total() != tc.total || p.Stage(7).Total() != tc.onStage {
			t.Errorf("app %q: got %d samples, %d of stage 7; want %d and %d", tc.app, p.Total(), p.Stage(7).Total(), tc.total, tc.onStage)
		}
		if tc.total > 0 {
			if f := p.Samples[0].Stack.Frames[0]; f != (jfr.Frame{Class: "A", Method: "b", Descriptor: "()V", Line: 7}) {
				t.Errorf("got frame %+v, want A.b()V line 7", f)
			}
		}
	}
}

// TestReadPprofErrors: broken files are errors naming the file, never a
// crash.
func TestReadPprofErrors(t *testing.T) {
	good := pprofBytes(t, work(t, CPU))
	zr, _ := gzip.NewReader(bytes.NewReader(good))
	plain, _ := io.ReadAll(zr)
	deep := &Profile{Samples: []Sample{{Stack: &jfr.Stack{Frames: make([]jfr.Frame, maxPprofDepth+1)}, Value: 1}}}
	for name, data := range map[string][]byte{
		"truncated gzip":  good[:len(good)/2],
		"truncated proto": plain[:len(plain)-3],
		"bad string":      append(slices.Clone(plain), 0x12, 0x04, 0x1a, 0x02, 0x08, 0x7f), // a sample labelled with string 127
		"no location":     append(slices.Clone(plain), 0x12, 0x03, 0x0a, 0x01, 0x7f),       // a sample of location 127
		"too deep":        pprofBytes(t, deep),
	} {
		if err := ReadPprof(&Profile{}, bytes.NewReader(data), "x.pb.gz", ""); err == nil || !strings.Contains(err.Error(), "x.pb.gz") {
			t.Errorf("%s: got %v, want an error naming x.pb.gz", name, err)
		}
	}
}

// TestReadAppProfilesPprof: a recording written both as pprof and as
// collapsed stacks is counted once, from the pprof file, whose
// executor_id label wins over its name; a broken file is reported and
// the others still read.
func TestReadAppProfilesPprof(t *testing.T) {
	dir := t.TempDir()
	const app = "app-20261128100000-0001"
	orig := work(t, CPU)
	orig.Labels = []Label{{"app_id", app}, {"executor_id", "7"}} // the label wins over the name
	for name, data := range map[string][]byte{
		app + "-3-pid1-20261128T100000Z.cpu.pb.gz":     pprofBytes(t, orig),
		app + "-3-pid1-20261128T100000Z.cpu.collapsed": []byte(collapsedOf(t, orig)),
		app + "-4-pid2-20261128T100000Z.cpu.collapsed": []byte(collapsedOf(t, orig)),
		app + "-5-pid3-20261128T100000Z.cpu.pb.gz":     []byte("not a profile"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, files, err := ReadAppProfiles(dir, app)
	if err == nil || !strings.Contains(err.Error(), "-5-pid3-") {
		t.Errorf("got error %v, want one naming the broken file", err)
	}
	want := []string{app + "-3-pid1-20261128T100000Z.cpu.pb.gz", app + "-4-pid2-20261128T100000Z.cpu.collapsed"}
	if !slices.Equal(files, want) || p == nil || p.Total() != 2*orig.Total() || !slices.Equal(p.Executors(), []string{"4", "7"}) {
		t.Fatalf("got files %v, want %v with 2×%d samples of executors 4 and 7", files, want, orig.Total())
	}
	if got := p.Executor("7").Stage(1).Total(); got != orig.Stage(1).Total() {
		t.Errorf("executor 7 stage 1: got %d, want %d", got, orig.Stage(1).Total())
	}
}

// FuzzReadPprof: no input crashes the reader, and what it reads can be
// written again. The seeds are small (a few samples of each kind of
// label): the fuzzer's minimizing of work.jfr's 30 KB profile stalls it.
func FuzzReadPprof(f *testing.F) {
	st := &jfr.Stack{Frames: []jfr.Frame{{Class: "A", Method: "b", Descriptor: "()V", Line: 7}, {Class: "C$D", Method: "e"}}}
	small := &Profile{Kind: CPU, Labels: []Label{{"app_id", "app-1"}, {"executor_id", "3"}}, Samples: []Sample{
		{Stack: st, Thread: "Executor task launch worker for task 3.0 in stage 7.0 (TID 9)", Task: Task{Stage: 7, TID: 9}, OnTask: true, Value: 2},
		{Stack: st, Thread: "main", Value: 5}, {Stack: &jfr.Stack{}, Value: 1},
	}}
	good := pprofBytes(f, small)
	f.Add(good)
	zr, _ := gzip.NewReader(bytes.NewReader(good))
	plain, _ := io.ReadAll(zr)
	f.Add(plain)
	f.Add([]byte{0x12, 0x03, 0x0a, 0x01, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := &Profile{}
		if err := ReadPprof(p, bytes.NewReader(data), "f", ""); err != nil {
			return
		}
		if err := WritePprof(io.Discard, p); err != nil {
			t.Fatal(err)
		}
	})
}
