// Package deploy holds no code: its tests check what deploy/ ships — the
// Grafana dashboards, the Prometheus alert rules and the Helm chart —
// against real Prometheus, promtool and helm.
package deploy
