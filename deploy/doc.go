// Package deploy holds no code: its tests check what deploy/ ships — the
// Grafana dashboards, the Prometheus alert rules and the Helm chart —
// against real Prometheus, promtool and helm, and what the repository's
// Dockerfile promises (a static binary, jcmd on PATH) on machines with no
// Docker engine.
package deploy
