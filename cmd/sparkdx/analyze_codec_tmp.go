package main

import "github.com/sparkdx/sparkdx/internal/eventlog"

// logCodec names a log's codec; until the codec branch's Open lands.
func logCodec(l *eventlog.Log) string {
	if l.Codec == "" {
		return "none"
	}
	return string(l.Codec)
}
