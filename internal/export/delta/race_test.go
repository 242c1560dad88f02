package delta

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// backend is a place a table lives, plus a way to copy it to a local
// directory for deltacheck and DuckDB.
type backend struct {
	name  string
	env   []string // how a child process reaches the same table
	store func(t testing.TB) Storage
	local func(t *testing.T) string
}

func dirBackend(t *testing.T) backend {
	dir := t.TempDir()
	return backend{
		name:  "dir",
		env:   []string{"DELTA_RACE_DIR=" + dir},
		store: func(testing.TB) Storage { return NewDirStore(dir) },
		local: func(*testing.T) string { return dir },
	}
}

func s3Backend(t *testing.T) backend {
	m := sparktest.StartMinIO(t)
	bucket := "tables"
	client := m.Bucket(t, bucket)
	prefix := "sparkdx/race"
	return backend{
		name: "s3",
		env:  []string{"DELTA_RACE_S3=" + strings.Join([]string{m.Addr, m.AccessKey, m.SecretKey, bucket, prefix}, ",")},
		store: func(tb testing.TB) Storage {
			return NewS3Store(m.Client(tb), bucket, prefix)
		},
		local: func(t *testing.T) string { return download(t, client, bucket, prefix) },
	}
}

// download copies every object under prefix into a fresh directory.
func download(t *testing.T, client *minio.Client, bucket, prefix string) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	for obj := range client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: prefix + "/", Recursive: true}) {
		if obj.Err != nil {
			t.Fatal(obj.Err)
		}
		r, err := client.GetObject(ctx, bucket, obj.Key, minio.GetObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(obj.Key, prefix+"/")))
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	raceBatches = 12
	raceRows    = 5
)

// appendBatches is one racing writer: raceBatches appends, each carrying
// its own transaction identifier. It returns the commit attempts lost.
func appendBatches(ctx context.Context, st Storage, writer string) (lost int, err error) {
	return appendN(ctx, st, writer, raceBatches)
}

// appendN appends n batches of raceRows rows, each with its own
// transaction identifier (writer-i).
func appendN(ctx context.Context, st Storage, writer string, n int) (lost int, err error) {
	tbl, err := Open[testRow](ctx, st, Options{Name: "race", PartitionBy: []string{"date"}, CheckpointInterval: 5})
	if err != nil {
		return 0, err
	}
	for i := 0; i < n; i++ {
		res, err := tbl.Append(ctx, testRows(raceRows, i*raceRows), AppendOptions{TxnAppID: writer + "-" + strconv.Itoa(i), TxnVersion: 1})
		if err != nil {
			return lost, err
		}
		lost += res.Attempts - 1
	}
	return lost, nil
}

// checkRace verifies that every writer's every batch landed exactly once.
func checkRace(t *testing.T, dir string, writers int) {
	t.Helper()
	tb := checkTable(t, dir)
	if got, want := tb.Version, int64(writers*raceBatches); got != want {
		t.Errorf("got version %d, want %d (create + one per batch)", got, want)
	}
	if got, want := len(tb.Txns), writers*raceBatches; got != want {
		t.Errorf("got %d transaction ids, want %d", got, want)
	}
	if got, want := tb.Rows, int64(writers*raceBatches*raceRows); got != want {
		t.Errorf("got %d rows, want %d", got, want)
	}
	if len(tb.Checkpoints) == 0 {
		t.Errorf("no checkpoint written in %d versions", tb.Version)
	}
}

func TestRacingGoroutines(t *testing.T) {
	for _, mk := range []func(*testing.T) backend{dirBackend, s3Backend} {
		b := mk(t)
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			var wg sync.WaitGroup
			errs := make([]error, 2)
			lost := make([]int, 2)
			for w := range 2 {
				wg.Go(func() { lost[w], errs[w] = appendBatches(ctx, b.store(t), fmt.Sprintf("g%d", w)) })
			}
			wg.Wait()
			for w, err := range errs {
				if err != nil {
					t.Fatalf("writer %d: %v", w, err)
				}
			}
			t.Logf("attempts lost to the other writer: %v", lost)
			checkRace(t, b.local(t), 2)
		})
	}
}

func TestRacingProcesses(t *testing.T) {
	for _, mk := range []func(*testing.T) backend{dirBackend, s3Backend} {
		b := mk(t)
		t.Run(b.name, func(t *testing.T) {
			var cmds []*exec.Cmd
			for w := range 2 {
				cmd := exec.Command(os.Args[0], "-test.run", "^TestRaceChild$", "-test.v")
				cmd.Env = append(os.Environ(), append(b.env, fmt.Sprintf("DELTA_RACE_WRITER=p%d", w))...)
				out := &strings.Builder{}
				cmd.Stdout, cmd.Stderr = out, out
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					if t.Failed() {
						t.Logf("writer %d:\n%s", w, out)
					}
				})
				cmds = append(cmds, cmd)
			}
			for w, cmd := range cmds {
				if err := cmd.Wait(); err != nil {
					t.Errorf("writer process %d: %v", w, err)
				}
			}
			checkRace(t, b.local(t), 2)
		})
	}
}

// TestRaceChild is the body of a racing writer process started by
// TestRacingProcesses; it does nothing when run directly.
func TestRaceChild(t *testing.T) {
	writer := os.Getenv("DELTA_RACE_WRITER")
	if writer == "" {
		t.Skip("run by TestRacingProcesses")
	}
	var st Storage
	if dir := os.Getenv("DELTA_RACE_DIR"); dir != "" {
		st = NewDirStore(dir)
	} else {
		f := strings.Split(os.Getenv("DELTA_RACE_S3"), ",")
		st = NewS3Store(sparktest.MinIO{Addr: f[0], AccessKey: f[1], SecretKey: f[2]}.Client(t), f[3], f[4])
	}
	n := raceBatches
	if v := os.Getenv("DELTA_RACE_BATCHES"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	lost, err := appendN(context.Background(), st, writer, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("writer %s lost %d attempts", writer, lost)
}

// TestKilledWriter: two writer processes append to one table while a third,
// killed with SIGKILL in the middle of its appends, leaves whatever it was
// writing: every commit is whole (the killed writer's rows are exactly its
// committed batches', nothing duplicated), the other writers lose nothing,
// and vacuum removes what the killed writer left uncommitted.
func TestKilledWriter(t *testing.T) {
	for _, mk := range []func(*testing.T) backend{dirBackend, s3Backend} {
		b := mk(t)
		t.Run(b.name, func(t *testing.T) {
			start := func(writer string, batches int) (*exec.Cmd, *strings.Builder) {
				cmd := exec.Command(os.Args[0], "-test.run", "^TestRaceChild$", "-test.v")
				cmd.Env = append(os.Environ(), append(b.env, "DELTA_RACE_WRITER="+writer, fmt.Sprintf("DELTA_RACE_BATCHES=%d", batches))...)
				out := &strings.Builder{}
				cmd.Stdout, cmd.Stderr = out, out
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				return cmd, out
			}
			victim, _ := start("killed", 100000)
			st := b.store(t)
			// Kill it once it has committed a few versions of its own.
			for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				names, _ := st.List(context.Background(), logDir)
				if len(parseListing(names).commits) >= 6 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the writer to kill committed nothing in 60 s")
				}
			}
			var cmds []*exec.Cmd
			var outs []*strings.Builder
			for w := range 2 {
				cmd, out := start(fmt.Sprintf("p%d", w), raceBatches)
				cmds, outs = append(cmds, cmd), append(outs, out)
			}
			time.Sleep(150 * time.Millisecond) // in the middle of the others' appends
			if err := victim.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			victim.Wait()
			for w, cmd := range cmds {
				if err := cmd.Wait(); err != nil {
					t.Errorf("writer process %d: %v\n%s", w, err, outs[w])
				}
			}
			dir := b.local(t)
			tb := checkTable(t, dir)
			killed := 0
			for id := range tb.Txns {
				if strings.HasPrefix(id, "killed-") {
					killed++
				}
			}
			batches := 2*raceBatches + killed
			if len(tb.Txns) != batches || tb.Rows != int64(batches*raceRows) || tb.Version != int64(batches) {
				t.Errorf("got %d transactions, %d rows, version %d; want %d (the killed writer's %d and 2 × %d), %d rows, version %d",
					len(tb.Txns), tb.Rows, tb.Version, batches, killed, raceBatches, batches*raceRows, batches)
			}
			// What the killed writer left uncommitted goes with vacuum.
			tbl, err := Open[testRow](context.Background(), b.store(t), Options{Name: "race", PartitionBy: []string{"date"}})
			if err != nil {
				t.Fatal(err)
			}
			vr, err := tbl.Vacuum(context.Background(), VacuumOptions{Now: time.Now().Add(8 * 24 * time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			after := checkTable(t, b.local(t))
			t.Logf("killed writer committed %d batches; vacuum deleted %d uncommitted files: %v", killed, len(vr.Deleted), vr.Deleted)
			if after.Rows != tb.Rows || len(after.Files) != len(tb.Files) {
				t.Errorf("after vacuum: %d rows in %d files, want %d in %d", after.Rows, len(after.Files), tb.Rows, len(tb.Files))
			}
		})
	}
}
