package hprof

import "strings"

// Note points at a class that means something to a Spark user.
type Note struct {
	Class     string `json:"class"`
	Instances int64  `json:"instances"`
	Bytes     int64  `json:"bytes"`
	Note      string `json:"note"`
	Recipe    string `json:"recipe"`
}

const recipeBase = "docs/recipes/troubleshoot/heap-dump-notes.md#"

// sparkClass is one rule: a class name (or a prefix ending in "." or "$")
// and what a large count of it usually means.
type sparkClass struct {
	match  string
	prefix bool
	note   string
	anchor string
}

func sparkClasses() []sparkClass {
	return []sparkClass{
		{"org.apache.spark.CleanupTaskWeakReference", false,
			"ContextCleaner backlog: weak references to RDDs, shuffles, broadcasts and accumulators waiting for cleanup; a growing count means the driver keeps references or cleaning is slower than creation.",
			"contextcleaner-backlog"},
		{"org.apache.spark.CleanAccum", false,
			"ContextCleaner accumulator cleanup tasks queued; many jobs with many accumulators (SQL metrics) grow this on long-running drivers.",
			"contextcleaner-backlog"},
		{"org.apache.spark.sql.catalyst.expressions.UnsafeRow", false,
			"UnsafeRow objects: rows held on the heap, typically by collect()/take(), broadcast-join build sides or cached local relations.",
			"unsaferow"},
		{"org.apache.spark.storage.BroadcastBlockId", false,
			"Broadcast blocks tracked by the block manager; many of them mean broadcasts are created (e.g. per query) and not yet destroyed.",
			"broadcast"},
		{"org.apache.spark.broadcast.TorrentBroadcast", false,
			"Live broadcast variables; each keeps its value on the driver until unpersisted or cleaned.",
			"broadcast"},
		{"org.apache.spark.storage.memory.", true,
			"Block manager memory store: its entries hold the blocks cached in this JVM (cache()/persist() of RDDs and DataFrames, broadcast pieces); their bytes are in the arrays and columnar batches the entries point to, which sparkdx heap --retained counts as 'cached blocks'.",
			"memory-store"},
		{"py4j.", true,
			"Py4J objects: references PySpark holds to JVM objects; growth means Python-side references (DataFrames, iterators) are not released.",
			"py4j"},
		{"org.apache.spark.status.", true,
			"Spark UI status store (jobs, stages, tasks kept for the UI); lower spark.ui.retainedJobs/Stages/Tasks on long-running drivers.",
			"ui-status-store"},
	}
}

// SparkNotes returns the classes of a histogram that match a Spark rule,
// largest first, grouping prefix rules into one note.
func SparkNotes(classes []ClassStat) []Note {
	var notes []Note
	for _, r := range sparkClasses() {
		n := Note{Class: r.match, Note: r.note, Recipe: recipeBase + r.anchor}
		if r.prefix {
			n.Class = r.match + "*"
		}
		for _, c := range classes {
			if c.Class == r.match || (r.prefix && strings.HasPrefix(c.Class, r.match)) {
				n.Instances += c.Instances
				n.Bytes += c.Bytes
			}
		}
		if n.Instances > 0 {
			notes = append(notes, n)
		}
	}
	return notes
}
