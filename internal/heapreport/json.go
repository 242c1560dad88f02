package heapreport

import (
	"encoding/json"
	"io"

	"github.com/sparkdx/sparkdx/internal/jvm/hprof"
)

type heapDumpJSON struct {
	Path        string `json:"path"`
	Format      string `json:"format"`
	IDSize      int    `json:"idSize"`
	Bytes       int64  `json:"bytes"`
	Records     int64  `json:"records"`
	Truncated   bool   `json:"truncated"`
	TruncatedAt int64  `json:"truncatedAt,omitempty"`
}

type heapLayoutJSON struct {
	CompressedOops          bool   `json:"compressedOops"`
	CompressedClassPointers bool   `json:"compressedClassPointers"`
	CompactHeaders          bool   `json:"compactHeaders"`
	ElementAlignedArrays    bool   `json:"elementAlignedArrays"`
	ThirtyTwoBit            bool   `json:"thirtyTwoBit"`
	Evidence                string `json:"evidence"`
}

type heapTotalsJSON struct {
	Instances int64 `json:"instances"`
	Bytes     int64 `json:"bytes"`
}

type heapJSON struct {
	Schema           string              `json:"schema"`
	Dump             heapDumpJSON        `json:"dump"`
	Layout           heapLayoutJSON      `json:"layout"`
	Totals           heapTotalsJSON      `json:"totals"`
	Classes          []hprof.ClassStat   `json:"classes"`
	Fillers          []hprof.ClassStat   `json:"fillers"`
	Largest          []hprof.Object      `json:"largest"`
	DuplicateStrings hprof.StringSummary `json:"duplicateStrings"`
	Spark            []hprof.Note        `json:"spark"`
	Baseline         *heapDumpJSON       `json:"baseline,omitempty"`
	Growth           []hprof.Growth      `json:"growth,omitempty"`
	// With --retained: the dominator tree's summary and, with a baseline,
	// the growth of retained bytes per top-level dominator class.
	Retained       *hprof.Retained `json:"retained,omitempty"`
	RetainedGrowth []hprof.Growth  `json:"retainedGrowth,omitempty"`
}

func dumpJSON(path string, h *hprof.Histogram) heapDumpJSON {
	return heapDumpJSON{Path: path, Format: h.Version, IDSize: h.IDSize, Bytes: h.BytesRead, Records: h.Records,
		Truncated: h.Truncated, TruncatedAt: h.TruncatedAt}
}

// WriteJSON writes the sparkdx.heap/v1 document (docs/heap.md).
func WriteJSON(w io.Writer, r Report) error {
	h := r.Hist
	inst, bytes := hprof.Totals(h.Classes)
	out := heapJSON{
		Schema: "sparkdx.heap/v1",
		Dump:   dumpJSON(r.Path, h),
		Layout: heapLayoutJSON{h.Layout.CompressedOops, h.Layout.CompressedClassPointers, h.Layout.CompactHeaders,
			h.Layout.ElementAlignedArrays, h.Layout.ThirtyTwoBit, h.LayoutEvidence},
		Totals:           heapTotalsJSON{inst, bytes},
		Classes:          nonNil(h.Classes),
		Fillers:          nonNil(h.Fillers),
		Largest:          nonNil(h.Largest),
		DuplicateStrings: h.Strings,
		Spark:            nonNil(hprof.SparkNotes(h.Classes)),
	}
	if out.DuplicateStrings.Top == nil {
		out.DuplicateStrings.Top = []hprof.DupString{}
	}
	if r.Base != nil {
		b := dumpJSON(r.BasePath, r.Base)
		out.Baseline = &b
		out.Growth = nonNil(hprof.Diff(r.Base.Classes, h.Classes))
	}
	out.Retained = r.Retained
	if g := r.RetainedGrowth(); r.BaseRetained != nil {
		out.RetainedGrowth = nonNil(g)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
