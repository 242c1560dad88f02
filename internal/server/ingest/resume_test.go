package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestRestartResumesRunningLog: a running log read by one ingester is
// continued by the next on the same store from where the first stopped:
// the second reads exactly the bytes appended since, and the finished
// model equals that of one ingester that read the log without a stop.
func TestRestartResumesRunningLog(t *testing.T) {
	for _, name := range []string{"local-1642039451826", "app-20200706201101-0003"} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(sparktest.Path(t, "spark-events", name))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			running := filepath.Join(dir, name+".inprogress")
			cuts := []int{len(src) * 2 / 5, len(src) * 3 / 5, len(src) * 4 / 5} // mid-line, as Spark's buffer flushes
			st, err := store.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			cfg := Config{Roots: []string{dir}, Store: st, SnapshotEvery: time.Nanosecond, MaxBatch: 64 << 10}
			prev := 0
			for i, cut := range cuts {
				writeFile(t, running, src[:cut])
				in, stop := run(t, cfg)
				got := waitRead(t, in, int64(cut-prev))
				stop()
				if got.Bytes != int64(cut-prev) {
					t.Errorf("run %d: read %d bytes, want the %d appended since the last run", i, got.Bytes, cut-prev)
				}
				if i > 0 && got.Resumed != 1 {
					t.Errorf("run %d: resumed %d logs, want 1", i, got.Resumed)
				}
				if got.Saves == 0 {
					t.Errorf("run %d: no resume state saved", i)
				}
				prev = cut
			}
			// The application ends: Spark writes the rest and renames the file.
			writeFile(t, running, src)
			final := filepath.Join(dir, name)
			if err := os.Rename(running, final); err != nil {
				t.Fatal(err)
			}
			mtime := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) // the model's LastUpdated
			if err := os.Chtimes(final, mtime, mtime); err != nil {
				t.Fatal(err)
			}
			in, _ := run(t, cfg)
			got := waitDone(t, in, 1)
			if got.Bytes != int64(len(src)-prev) || got.Resumed != 1 {
				t.Errorf("last run: read %d bytes, resumed %d; want %d and 1", got.Bytes, got.Resumed, len(src)-prev)
			}
			if _, err := st.Tail(Key(final)); err == nil {
				t.Errorf("finished log still has a resume state")
			}

			// One ingester over the whole log, never stopped.
			dir2 := filepath.Join(t.TempDir(), "once")
			os.MkdirAll(dir2, 0o755)
			writeFile(t, filepath.Join(dir2, name), src)
			if err := os.Chtimes(filepath.Join(dir2, name), mtime, mtime); err != nil {
				t.Fatal(err)
			}
			once, _ := run(t, Config{Roots: []string{dir2}})
			waitDone(t, once, 1)
			a, release, err := in.Attempt(context.Background(), Key(final))
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			b, release2, err := once.Attempt(context.Background(), Key(filepath.Join(dir2, name)))
			if err != nil {
				t.Fatal(err)
			}
			defer release2()
			a2, b2 := *a, *b
			a2.LogPath, b2.LogPath = "", ""
			if !reflect.DeepEqual(&a2, &b2) {
				t.Errorf("model after %d restarts differs from one uninterrupted read", len(cuts))
			}
			ra, _ := st.Report(Key(final))
			rb, _ := once.cfg.Store.Report(Key(filepath.Join(dir2, name)))
			ra = bytes.ReplaceAll(ra, []byte(dir), []byte(dir2))
			if len(ra) == 0 || !bytes.Equal(ra, rb) {
				t.Errorf("stored report differs from the uninterrupted one:\n got %.400s\nwant %.400s", ra, rb)
			}
		})
	}
}

// TestResumeStateThatNoLongerFits: a running log replaced while serve was
// down — by a shorter one, or by another log under the same name, longer
// than what was read (the bytes before the stored offset differ) — is read
// anew from its start, not continued at the old offset.
func TestResumeStateThatNoLongerFits(t *testing.T) {
	first, err := os.ReadFile(sparktest.Path(t, "spark-events", "local-1642039451826"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile(sparktest.Path(t, "spark-events", "app-20200706201101-0003"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name          string
		before, after []byte
		wantApp       string
	}{
		{"shrunk", first[:len(first)/2], first[:len(first)/4], "local-1642039451826"},
		{"replaced", first[:len(other)/2], other, "app-20200706201101-0003"},
	} {
		t.Run(c.name, func(t *testing.T) {
			running := filepath.Join(t.TempDir(), "app.inprogress")
			writeFile(t, running, c.before)
			st, err := store.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			cfg := Config{Roots: []string{filepath.Dir(running)}, Store: st, SnapshotEvery: time.Nanosecond}
			in, stop := run(t, cfg)
			waitRead(t, in, int64(len(c.before)))
			stop()
			writeFile(t, running, c.after)
			in, _ = run(t, cfg)
			got := waitRead(t, in, int64(len(c.after)))
			if got.Resumed != 0 || got.Bytes != int64(len(c.after)) {
				t.Errorf("resumed %d, read %d bytes; want 0 and the whole %d", got.Resumed, got.Bytes, len(c.after))
			}
			a, release, err := in.Attempt(context.Background(), Key(running))
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			if a.AppID != c.wantApp {
				t.Errorf("got app %q, want %q", a.AppID, c.wantApp)
			}
		})
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// waitRead waits until the ingester has read n bytes and is idle.
func waitRead(t *testing.T, in *Ingester, n int64) Status {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := in.Status()
		if st.Bytes >= n && st.QueueDepth == 0 && st.InFlight == 0 {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("got %+v, want %d bytes read", st, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestResumeRollingDir: a rolling log resumes at the part it was reading
// when that part is still there after the stop (new parts appeared, older
// ones were compacted), and is read from its start when the part it was
// reading was compacted away meanwhile.
func TestResumeRollingDir(t *testing.T) {
	const app = "local-1642039451826"
	src, err := os.ReadFile(sparktest.Path(t, "spark-events", app))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	const n = 4
	part := func(i int) []byte { return bytes.Join(lines[i*len(lines)/n:(i+1)*len(lines)/n], nil) }
	for _, c := range []struct {
		name      string
		compactTo int // while stopped, parts 1..compactTo become events_<compactTo>_<app>.compact
		resumed   int64
	}{{"new part", 0, 1}, {"older part compacted", 1, 1}, {"reading part compacted", 2, 0}} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "eventlog_v2_"+app)
			os.Mkdir(dir, 0o755)
			status := filepath.Join(dir, "appstatus_"+app+".inprogress")
			writeFile(t, status, nil)
			name := func(i int) string { return filepath.Join(dir, "events_"+string(rune('0'+i))+"_"+app) }
			writeFile(t, name(1), part(0))
			writeFile(t, name(2), part(1))
			st, err := store.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			cfg := Config{Roots: []string{root}, Store: st, SnapshotEvery: time.Nanosecond}
			in, stop := run(t, cfg)
			waitRead(t, in, int64(len(part(0))+len(part(1))))
			stop()

			var compact []byte
			for i := 0; i < c.compactTo; i++ {
				compact = append(compact, part(i)...)
			}
			if c.compactTo > 0 {
				writeFile(t, name(c.compactTo)+".compact", compact)
				for i := 1; i <= c.compactTo; i++ {
					os.Remove(name(i))
				}
			}
			writeFile(t, name(3), part(2))
			in, stop = run(t, cfg)
			want := int64(len(part(2)))
			if c.resumed == 0 {
				want += int64(len(compact))
			}
			got := waitRead(t, in, want)
			stop()
			if got.Resumed != c.resumed || got.Bytes != want {
				t.Errorf("resumed %d, read %d bytes; want %d and %d", got.Resumed, got.Bytes, c.resumed, want)
			}

			writeFile(t, name(4), part(3))
			if err := os.Rename(status, filepath.Join(dir, "appstatus_"+app)); err != nil {
				t.Fatal(err)
			}
			in, _ = run(t, cfg)
			waitDone(t, in, 1)
			a, release, err := in.Attempt(context.Background(), Key(dir))
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			wantA, _, err := replay.Read(context.Background(), bytes.NewReader(src), replay.Options{Name: app})
			if err != nil {
				t.Fatal(err)
			}
			if a.Completed != true || len(a.Stages) != len(wantA.Stages) || len(a.Jobs) != len(wantA.Jobs) ||
				len(a.Executors) != len(wantA.Executors) || taskCount(a) != taskCount(wantA) {
				t.Errorf("finished: completed %v, %d stages %d jobs %d executors %d tasks; want true, %d %d %d %d",
					a.Completed, len(a.Stages), len(a.Jobs), len(a.Executors), taskCount(a),
					len(wantA.Stages), len(wantA.Jobs), len(wantA.Executors), taskCount(wantA))
			}
		})
	}
}

func taskCount(a *model.Attempt) int {
	n := 0
	for _, s := range a.Stages {
		n += len(s.Tasks)
	}
	return n
}

// TestResumeCompressedLog: a running compressed log (Spark's lz4, zstd)
// resumes at the stored restart point of its codec: the state names a
// block boundary past the start, the restart delivers exactly the decoded
// bytes past the stored offset, and the finished model equals one read
// without a stop.
func TestResumeCompressedLog(t *testing.T) {
	for _, name := range []string{"local-1642039451826.lz4", "local-1642039451826.zstd", "app-20200706201101-0003.snappy",
		"app-20200706201101-0003.lzf"} {
		t.Run(name, func(t *testing.T) {
			comp, err := os.ReadFile(sparktest.Path(t, "compressed", name))
			if err != nil {
				t.Fatal(err)
			}
			app := strings.SplitN(name, ".", 2)[0]
			plain, err := os.ReadFile(sparktest.Path(t, "spark-events", app))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			running := filepath.Join(dir, name+".inprogress")
			writeFile(t, running, comp[:len(comp)*2/3]) // cut inside a block, as a running log is
			st, err := store.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			cfg := Config{Roots: []string{dir}, Store: st, SnapshotEvery: time.Nanosecond}
			in, stop := run(t, cfg)
			first := waitRead(t, in, 1)
			stop()
			blob, err := st.Tail(Key(running))
			if err != nil {
				t.Fatal(err)
			}
			p, _, err := decodeResume(blob)
			if err != nil {
				t.Fatal(err)
			}
			if p.Offset != first.Bytes || p.Pos.Decoded != p.Offset || p.Pos.Comp <= 0 || p.Pos.CompDecoded > p.Offset {
				t.Fatalf("stored point %+v after reading %d bytes: want a restart point inside the part at or before them", p, first.Bytes)
			}

			writeFile(t, running, comp)
			final := filepath.Join(dir, name)
			if err := os.Rename(running, final); err != nil {
				t.Fatal(err)
			}
			in, _ = run(t, cfg)
			got := waitDone(t, in, 1)
			if got.Resumed != 1 || got.Bytes != int64(len(plain))-first.Bytes {
				t.Errorf("restart: resumed %d, read %d decoded bytes; want 1 and %d", got.Resumed, got.Bytes, int64(len(plain))-first.Bytes)
			}
			a, release, err := in.Attempt(context.Background(), Key(final))
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			want, _, err := replay.Read(context.Background(), bytes.NewReader(plain), replay.Options{Name: app})
			if err != nil {
				t.Fatal(err)
			}
			if !a.Completed || taskCount(a) != taskCount(want) || len(a.Jobs) != len(want.Jobs) || a.EndTime != want.EndTime {
				t.Errorf("finished: completed %v, %d tasks, %d jobs, end %d; want true, %d, %d, %d",
					a.Completed, taskCount(a), len(a.Jobs), a.EndTime, taskCount(want), len(want.Jobs), want.EndTime)
			}
		})
	}
}
