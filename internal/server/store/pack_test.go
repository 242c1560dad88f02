package store

import (
	"bytes"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestCompressedValues: reports, views and replay states larger than
// packMin are stored compressed and read back byte for byte; small ones
// stay as they are; a value an older sparkdx stored uncompressed still
// reads; a damaged compressed value is an error naming its key.
func TestCompressedValues(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	report := []byte(`{"schema":"sparkdx.report/v1","stages":[` + strings.Repeat(`{"stageId":1,"name":"count at <console>:23"},`, 200) + `{}]}`)
	env := []byte(strings.Repeat(`["spark.executor.memory","4g"],`, 300))
	state := bytes.Repeat([]byte{0, 1, 2, 3, 250}, 1000)
	rec := LogRecord{Key: "/logs/app-1", AppID: "app-1"}
	if err := s.PutAnalysis(rec, report, map[string][]byte{"api/environment": env, "api/jobs": []byte(`[]`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutTail(LogRecord{Key: "/logs/app-2", AppID: "app-2"}, state); err != nil {
		t.Fatal(err)
	}
	// What the file holds: compressed above packMin, as is below.
	err = s.db.View(func(tx *bolt.Tx) error {
		for _, c := range []struct {
			bucket, key []byte
			raw         []byte
			packed      bool
		}{
			{bucketReports, []byte("/logs/app-1"), report, true},
			{bucketViews, viewKey("/logs/app-1", "api/environment"), env, true},
			{bucketViews, viewKey("/logs/app-1", "api/jobs"), []byte(`[]`), false},
			{bucketTails, []byte("/logs/app-2"), state, true},
		} {
			v := tx.Bucket(c.bucket).Get(c.key)
			if got := bytes.HasPrefix(v, zstdMagic); got != c.packed {
				t.Errorf("%s %q: stored compressed %v, want %v", c.bucket, c.key, got, c.packed)
			}
			if c.packed && len(v) >= len(c.raw)/3 {
				t.Errorf("%s %q: %d bytes stored for %d", c.bucket, c.key, len(v), len(c.raw))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		get  func() ([]byte, error)
		want []byte
	}{
		"report": {func() ([]byte, error) { return s.Report("/logs/app-1") }, report},
		"env":    {func() ([]byte, error) { return s.View("/logs/app-1", "api/environment") }, env},
		"jobs":   {func() ([]byte, error) { return s.View("/logs/app-1", "api/jobs") }, []byte(`[]`)},
		"tail":   {func() ([]byte, error) { return s.Tail("/logs/app-2") }, state},
	} {
		if got, err := c.get(); err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%s: read %d bytes (%v), want the %d written", name, len(got), err, len(c.want))
		}
	}

	// An older store's uncompressed value, and a damaged compressed one.
	err = s.db.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketReports).Put([]byte("/logs/old"), report); err != nil {
			return err
		}
		damaged := append(append([]byte{}, zstdMagic...), 0xff, 0xff, 0xff, 0xff)
		return tx.Bucket(bucketReports).Put([]byte("/logs/damaged"), damaged)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Report("/logs/old"); err != nil || !bytes.Equal(got, report) {
		t.Errorf("an uncompressed report of an older store: %d bytes, %v", len(got), err)
	}
	if _, err := s.Report("/logs/damaged"); err == nil || !strings.Contains(err.Error(), "/logs/damaged") {
		t.Errorf("a damaged value: got %v, want an error naming its key", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
