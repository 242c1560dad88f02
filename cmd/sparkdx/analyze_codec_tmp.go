package main

import "github.com/sparkdx/sparkdx/internal/eventlog"

// logCodec names a log's codec; plain until the codec branch is merged.
func logCodec(l *eventlog.Log) string { return "none" }
