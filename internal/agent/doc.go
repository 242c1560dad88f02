// Package agent owns the node side of sparkdx: it finds Spark processes in
// /proc (drivers, executors, their Python workers, standalone and YARN
// daemons), samples them with one collector per source (process, container,
// node, jvm), reports processes that disappear and why, takes a heap dump of
// a JVM that stays near its heap limit, and renders samples for Prometheus,
// JSON and OTLP.
package agent
