package delta

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/deltaread"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// minioOptions are the object-store options the readers need for m.
func minioOptions(m sparktest.MinIO) map[string]string {
	return map[string]string{"AWS_ENDPOINT_URL": "http://" + m.Addr, "AWS_ACCESS_KEY_ID": m.AccessKey,
		"AWS_SECRET_ACCESS_KEY": m.SecretKey, "AWS_REGION": "us-east-1", "AWS_ALLOW_HTTP": "true"}
}

// TestSparkReadsTables writes every table from real event logs, plus
// samples over two days in twelve commits (a checkpoint at version 10), on
// MinIO (read through s3a://) and in a directory, and has Apache Spark with
// Delta Lake read them: the same versions, protocol, partitioning, files,
// rows and values as sparkdx's own reading, partition pruning by date (the
// files Spark reads for one date), time travel to the first append
// (versionAsOf). (TestMaintenance has Spark read a table whose log was
// cleaned up to its checkpoint.)
func TestSparkReadsTables(t *testing.T) {
	sparktest.Live(t)
	t.Run("s3", func(t *testing.T) {
		m := sparktest.StartMinIO(t)
		client := m.Bucket(t, "lake")
		lake := writeLake(t, S3Locator(client, "lake", "sparkdx"))
		lake.dir = download(t, client, "lake", "sparkdx")
		read := deltaread.Spark(t, minioOptions(m))
		compareReader(t, read, lake, read.Read("s3://lake/sparkdx", lakeTables, lake.firstVersion))
	})
	t.Run("local", func(t *testing.T) {
		read := deltaread.Spark(t, nil)
		lake := writeLake(t, nil)
		compareReader(t, read, lake, read.Read(lake.dir, lakeTables, lake.firstVersion))
	})
}
