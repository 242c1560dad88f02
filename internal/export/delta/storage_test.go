package delta

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

// TestStorageContract runs the same checks against every Storage.
func TestStorageContract(t *testing.T) {
	for _, mk := range []func(*testing.T) backend{dirBackend, s3Backend} {
		b := mk(t)
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			st := b.store(t)
			if _, err := st.Get(ctx, "_delta_log/missing.json"); !errors.Is(err, ErrNotExist) {
				t.Errorf("Get missing: got %v, want ErrNotExist", err)
			}
			if names, err := st.List(ctx, "_delta_log/"); err != nil || len(names) != 0 {
				t.Errorf("List empty: got %v, %v; want nothing", names, err)
			}
			if err := st.Put(ctx, "_delta_log/00000000000000000000.json", []byte("first"), true); err != nil {
				t.Fatalf("first exclusive Put: %v", err)
			}
			err := st.Put(ctx, "_delta_log/00000000000000000000.json", []byte("second"), true)
			if !errors.Is(err, ErrExist) {
				t.Errorf("second exclusive Put: got %v, want ErrExist", err)
			}
			got, err := st.Get(ctx, "_delta_log/00000000000000000000.json")
			if err != nil || string(got) != "first" {
				t.Errorf("after a lost exclusive Put: got %q, %v; want %q", got, err, "first")
			}
			if err := st.Put(ctx, "_delta_log/_last_checkpoint", []byte("a"), false); err != nil {
				t.Fatal(err)
			}
			if err := st.Put(ctx, "_delta_log/_last_checkpoint", []byte("b"), false); err != nil {
				t.Errorf("overwrite: %v", err)
			}
			if got, _ := st.Get(ctx, "_delta_log/_last_checkpoint"); string(got) != "b" {
				t.Errorf("after overwrite: got %q, want %q", got, "b")
			}
			if err := st.Put(ctx, "date=x/part-1.parquet", []byte("p"), true); err != nil {
				t.Fatal(err)
			}
			if v, ok := st.(interface{ verifyExclusive(context.Context) error }); ok {
				if err := v.verifyExclusive(ctx); err != nil {
					t.Errorf("verifyExclusive: %v", err) // the probe must also leave nothing behind (List below)
				}
			}
			names, err := st.List(ctx, "_delta_log/")
			want := []string{"00000000000000000000.json", "_last_checkpoint"}
			if err != nil || !reflect.DeepEqual(names, want) {
				t.Errorf("List: got %v, %v; want %v", names, err, want)
			}
		})
	}
}
