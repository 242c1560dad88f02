package delta

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/export/delta/deltaread"
)

// TestSparkReadsTables writes every table from real event logs, plus
// samples over two days in twelve commits (a checkpoint at version 10), and
// has Apache Spark with Delta Lake read them: the same versions, protocol,
// partitioning, files, rows and values as sparkdx's own reading, partition
// pruning by date (the files Spark reads for one date), time travel to the
// first append (versionAsOf), and the checkpoint read in place of the
// commits it replaces.
func TestSparkReadsTables(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Spark")
	}
	read := deltaread.Spark(t)
	lake := writeLake(t, nil)
	compareReader(t, read, lake, read.Read(lake.dir, lakeTables, lake.firstVersion))
	checkpointAlone(t, read, lake)
}
