package main

import "github.com/sparkdx/sparkdx/internal/eventlog"

// logCodec names a log's codec as Spark does ("none" for plain logs).
func logCodec(l *eventlog.Log) string {
	if l.Codec == "" {
		return "none"
	}
	return l.Codec.String()
}
