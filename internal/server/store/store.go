// Package store is sparkdx serve's embedded database: the index of event
// logs and their applications, each finished log's analysis (the
// sparkdx.report/v1 document), how far each log has been read with, for a
// running log, the replay state at that point, and the samples agents push.
//
// It is a bbolt file (one B+tree, copy-on-write pages, fsync at commit):
// every commit is atomic, so a kill -9 at any moment leaves either the whole
// analysis of a log or none of it, and restart re-reads only logs without
// a finished analysis. The access pattern is key-value (log by path, samples
// by app and time), so SQL would add weight without use.
//
// Reports, views and replay states are stored zstd-compressed (about 5x
// smaller: 53 → 10 KB for a small application); a value written
// uncompressed by an older sparkdx still reads, told apart by the frame's
// magic number, which no JSON document or replay state starts with.
package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/klauspost/compress/zstd"
	bolt "go.etcd.io/bbolt"
)

var (
	bucketLogs    = []byte("logs")
	bucketReports = []byte("reports")
	bucketViews   = []byte("views")
	bucketSamples = []byte("samples")
	bucketTails   = []byte("tails")
)

// ErrNotFound is returned for a key the store does not hold.
var ErrNotFound = errors.New("store: not found")

// Store is an open database. Its methods are safe for concurrent use.
type Store struct {
	enc    *zstd.Encoder // EncodeAll and DecodeAll are safe for concurrent use
	dec    *zstd.Decoder
	db     *bolt.DB
	path   string
	writes WriteHealth
}

// Open opens (creating when absent) the database in dir.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	path := filepath.Join(dir, "sparkdx.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketLogs, bucketReports, bucketViews, bucketSamples, bucketTails} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %w", err)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxValue))
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %w", err)
	}
	return &Store{enc: enc, dec: dec, db: db, path: path}, nil
}

// maxValue bounds a decompressed value (a replay state of the largest
// logs is tens of MB).
const maxValue = 1 << 30

// packMin is the size from which a value is compressed (a frame costs
// about a dozen bytes).
const packMin = 256

var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// pack compresses a value to store.
func (s *Store) pack(v []byte) []byte {
	if len(v) < packMin {
		return v
	}
	return s.enc.EncodeAll(v, make([]byte, 0, len(v)/4))
}

// unpack reads a stored value into a new slice.
func (s *Store) unpack(v []byte) ([]byte, error) {
	if !bytes.HasPrefix(v, zstdMagic) {
		return bytes.Clone(v), nil
	}
	return s.dec.DecodeAll(v, nil)
}

// Close closes the database.
func (s *Store) Close() error {
	s.dec.Close()
	return errors.Join(s.enc.Close(), s.db.Close())
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// update runs a write transaction and records how it went (Writes): a
// full disk under --data must show in /healthz and /metrics, not only in
// the log.
func (s *Store) update(fn func(tx *bolt.Tx) error) error {
	err := s.db.Update(fn)
	s.writes.Record(err)
	return err
}

// Writes is how the store's writes went.
func (s *Store) Writes() *WriteHealth { return &s.writes }

// LogRecord is what the store knows about one event log: where it is, how
// far it was read, and the application attempt it holds.
type LogRecord struct {
	Key     string `json:"key"` // the log's path without ".inprogress"
	Path    string `json:"path"`
	Name    string `json:"name"`
	Codec   string `json:"codec"`
	Rolling bool   `json:"rolling,omitempty"`

	// Done: the log is finished and its analysis is stored; Size and
	// ModTime say which version of the log it was.
	Done    bool  `json:"done"`
	Size    int64 `json:"size"`
	ModTime int64 `json:"modTime"` // unix ns
	// Part and Offset: for a running log with a stored resume state
	// (PutTail), the part (index in the log's parts) and its decoded bytes
	// read at the time of that state; zero otherwise.
	Part   int   `json:"part"`
	Offset int64 `json:"offset"`
	Events int64 `json:"events"`
	Bad    int64 `json:"badLines"`
	// Impossible counts the values the log recorded that cannot be (a
	// task ending before it starts, sums past int64: model.Attempt).
	Impossible int64  `json:"impossibleValues,omitempty"`
	Error      string `json:"error,omitempty"`

	AppID        string `json:"appId"`
	AttemptID    string `json:"attemptId,omitempty"`
	AppName      string `json:"appName"`
	User         string `json:"user"`
	SparkVersion string `json:"sparkVersion"`
	StartTime    int64  `json:"startTime"`
	EndTime      int64  `json:"endTime"`
	LastUpdated  int64  `json:"lastUpdated"`
	// LastEvent is the latest time the log's events show: where an
	// application without its end event stops (LastUpdated is the file's).
	LastEvent int64 `json:"lastEvent,omitempty"`
	Completed bool  `json:"completed"`
	// ExitCode is the application's exit code from its end event (Spark
	// 4.3 writes it); nil when the log has none.
	ExitCode *int     `json:"exitCode,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	// Run is the orchestrator run the application belongs to (an Airflow
	// DAG run, a spark.sparkdx.run value); nil when it names none.
	Run    *Run `json:"run,omitempty"`
	Tasks  int  `json:"tasks"`
	Stages int  `json:"stages"`
}

// Run is the orchestrator run an application belongs to, as its Spark
// properties name it (package ingest decides which).
type Run struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Source string `json:"source"`         // the properties it was read from: sparkdx, openlineage-root, openlineage, airflow-k8s
	Task   string `json:"task,omitempty"` // the orchestrator's task that started the application, when named
}

// PutLog records a log's progress (a running or unreadable log). A log
// recorded as done has no resume state any more.
func (s *Store) PutLog(rec LogRecord) error {
	return s.update(func(tx *bolt.Tx) error {
		if rec.Done {
			if err := tx.Bucket(bucketTails).Delete([]byte(rec.Key)); err != nil {
				return err
			}
		}
		return putJSON(tx.Bucket(bucketLogs), rec.Key, rec)
	})
}

// PutTail records a running log with its resume state (where reading
// stands and the replay state there) in one commit, so that a restart
// continues the log from that point, whatever moment the process died at.
func (s *Store) PutTail(rec LogRecord, state []byte) error {
	rec.Done = false
	return s.update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketTails).Put([]byte(rec.Key), s.pack(state)); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bucketLogs), rec.Key, rec)
	})
}

// Tail returns the resume state PutTail stored for a running log.
func (s *Store) Tail(key string) ([]byte, error) { return s.get(bucketTails, []byte(key)) }

// PutAnalysis records a finished log, its report and its named views
// (what the server shows of it without replaying it) in one commit.
func (s *Store) PutAnalysis(rec LogRecord, report []byte, views map[string][]byte) error {
	rec.Done = true
	return s.update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketReports).Put([]byte(rec.Key), s.pack(report)); err != nil {
			return err
		}
		if err := tx.Bucket(bucketTails).Delete([]byte(rec.Key)); err != nil {
			return err
		}
		vb := tx.Bucket(bucketViews)
		if err := deletePrefix(vb, viewKey(rec.Key, "")); err != nil {
			return err
		}
		for name, v := range views {
			if err := vb.Put(viewKey(rec.Key, name), s.pack(v)); err != nil {
				return err
			}
		}
		return putJSON(tx.Bucket(bucketLogs), rec.Key, rec)
	})
}

// viewKey is log key \x00 view name.
func viewKey(key, name string) []byte { return append(append([]byte(key), 0), name...) }

func deletePrefix(b *bolt.Bucket, prefix []byte) error {
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// DeleteLog forgets a log that is gone.
func (s *Store) DeleteLog(key string) error {
	return s.update(func(tx *bolt.Tx) error {
		if err := deletePrefix(tx.Bucket(bucketViews), viewKey(key, "")); err != nil {
			return err
		}
		if err := tx.Bucket(bucketReports).Delete([]byte(key)); err != nil {
			return err
		}
		if err := tx.Bucket(bucketTails).Delete([]byte(key)); err != nil {
			return err
		}
		return tx.Bucket(bucketLogs).Delete([]byte(key))
	})
}

// Logs returns every log record, by key.
func (s *Store) Logs() ([]LogRecord, error) {
	var out []LogRecord
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketLogs).ForEach(func(k, v []byte) error {
			var r LogRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("log record %q: %w", k, err)
			}
			out = append(out, r)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return out, nil
}

// Report returns the stored report of a finished log.
func (s *Store) Report(key string) ([]byte, error) { return s.get(bucketReports, []byte(key)) }

// View returns one stored view of a finished log.
func (s *Store) View(key, name string) ([]byte, error) { return s.get(bucketViews, viewKey(key, name)) }

func (s *Store) get(bucket []byte, key []byte) ([]byte, error) {
	var out []byte
	err := s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucket).Get(key)
		if v == nil {
			return ErrNotFound
		}
		var err error
		if out, err = s.unpack(v); err != nil {
			return fmt.Errorf("%s %q: %w", bucket, key, err)
		}
		return nil
	})
	return out, err
}

func putJSON(b *bolt.Bucket, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put([]byte(key), data)
}

// Sample is one value of one metric an agent reported for one process.
type Sample struct {
	AppID      string  `json:"appId"`
	ExecutorID string  `json:"executorId"`
	Metric     string  `json:"metric"`
	Time       int64   `json:"time"` // epoch ms
	Value      float64 `json:"value"`
}

// sampleKey orders samples by app, executor, metric and time:
// app \x00 executor \x00 metric \x00 big-endian time.
func sampleKey(s Sample) []byte {
	k := make([]byte, 0, len(s.AppID)+len(s.ExecutorID)+len(s.Metric)+11)
	k = append(append(k, s.AppID...), 0)
	k = append(append(k, s.ExecutorID...), 0)
	k = append(append(k, s.Metric...), 0)
	return binary.BigEndian.AppendUint64(k, uint64(s.Time))
}

func parseSampleKey(k, v []byte) (Sample, bool) {
	parts := bytes.SplitN(k, []byte{0}, 4)
	if len(parts) != 4 || len(parts[3]) != 8 || len(v) != 8 {
		return Sample{}, false
	}
	return Sample{AppID: string(parts[0]), ExecutorID: string(parts[1]), Metric: string(parts[2]),
		Time: int64(binary.BigEndian.Uint64(parts[3])), Value: math.Float64frombits(binary.BigEndian.Uint64(v))}, true
}

// AddSamples stores samples in one commit.
func (s *Store) AddSamples(samples []Sample) error {
	if len(samples) == 0 {
		return nil
	}
	return s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSamples)
		for _, x := range samples {
			if x.AppID == "" || bytes.IndexByte([]byte(x.AppID+x.ExecutorID+x.Metric), 0) >= 0 {
				continue
			}
			if err := b.Put(sampleKey(x), binary.BigEndian.AppendUint64(nil, math.Float64bits(x.Value))); err != nil {
				return err
			}
		}
		return nil
	})
}

// Samples returns an application's samples ordered by executor, metric, time.
func (s *Store) Samples(appID string) ([]Sample, error) {
	return s.samples(append([]byte(appID), 0))
}

// ExecutorSamples returns one executor's (or the driver's) samples of an
// application, ordered by metric and time.
func (s *Store) ExecutorSamples(appID, executorID string) ([]Sample, error) {
	return s.samples(append(append(append([]byte(appID), 0), executorID...), 0))
}

func (s *Store) samples(prefix []byte) ([]Sample, error) {
	var out []Sample
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketSamples).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			if x, ok := parseSampleKey(k, v); ok {
				out = append(out, x)
			}
		}
		return nil
	})
	return out, err
}

// PruneSamples deletes samples older than before (epoch ms) and returns
// how many it deleted.
func (s *Store) PruneSamples(before int64) (int, error) {
	n := 0
	err := s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSamples)
		var dead [][]byte
		err := b.ForEach(func(k, v []byte) error {
			if x, ok := parseSampleKey(k, v); !ok || x.Time < before {
				dead = append(dead, bytes.Clone(k))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range dead {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		n = len(dead)
		return nil
	})
	return n, err
}
