// Package sinks receives what Spark's own metrics system pushes when it is
// configured with spark.metrics.conf.* properties alone — GraphiteSink's
// plaintext lines over TCP and StatsdSink's datagrams over UDP — and turns
// the JvmSource, ExecutorMetrics and executor sources of each driver and
// executor into the OTLP points a sparkdx agent sends (jvm.memory.used by
// pool, jvm.gc.*, spark.executor.*), so that managed Spark with no node
// agent feeds the same samples, Delta rows and /metrics series.
//
// Names follow Spark's default layout
// [prefix.]<spark.metrics.namespace = app id>.<executor id>.<source>.<metric>;
// a name in any other shape, or of a source or metric not mapped, is
// counted and dropped. Every input is bounded (line length, connections,
// series per application) and hostile input never crashes.
package sinks
