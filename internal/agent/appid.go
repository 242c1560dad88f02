package agent

import (
	"path"
	"strings"
)

// appIDTries bounds how many cycles the agent looks for a driver's
// application id among its open files: a driver opens its event log while
// its SparkContext starts, seconds after the JVM, or never (event log off,
// or on S3/HDFS).
const appIDTries = 60

// eventLogCodecs are the extensions Spark gives a compressed event log.
var eventLogCodecs = []string{".lz4", ".lzf", ".snappy", ".zstd"}

// appFromOpenFiles is the application id in the name of the event log a
// driver is writing, among the targets of its open file descriptors; "" if
// none is. Spark writes <appId>[.codec].inprogress, or in a rolling log
// eventlog_v2_<appId>/events_<N>_<appId>[.codec]. The names carry Spark's
// sanitized id (lower case, ' ', ':' and '/' as '-'), the same as the id
// for every application id Spark generates; an attempt id (YARN cluster
// mode, whose drivers the container names already) would be read as part
// of it.
func appFromOpenFiles(targets []string) string {
	for _, p := range targets {
		if !strings.HasPrefix(p, "/") {
			continue // socket:[…], pipe:[…], anon_inode:…
		}
		dir, base := path.Base(path.Dir(p)), path.Base(p)
		if id, ok := strings.CutPrefix(dir, "eventlog_v2_"); ok && id != "" && strings.HasPrefix(base, "events_") {
			return id
		}
		id, ok := strings.CutSuffix(base, ".inprogress")
		if !ok || strings.HasPrefix(base, "appstatus_") {
			continue
		}
		for _, c := range eventLogCodecs {
			id = strings.TrimSuffix(id, c)
		}
		if id != "" && !strings.HasPrefix(id, ".") {
			return id
		}
	}
	return ""
}
