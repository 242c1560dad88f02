#!/usr/bin/env bash
# Measures one sparkdx agent cycle on REAL processes and compares it with
# `jstat -gc PID` and with Debian's prometheus-process-exporter scraping the
# same processes. Starts N Spark-named executors (each with a pyspark.daemon
# and its fork), prints CPU per cycle / call / scrape, then stops them.
# Usage: testdata/measure/real.sh [N]   (run from internal/agent)
set -euo pipefail
n=${1:-10}
here=$(pwd)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
javac -d "$work/cls" $(find testdata/java -name '*.java')
go build -o "$work/sparkdx" ../../cmd/sparkdx
go test -c -o "$work/agent.test" .
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

pids=()
for i in $(seq 1 "$n"); do
	mkfifo "$work/in$i"
	java -Xmx64m -XX:+UseG1GC -Dsdx.python="$here/testdata/python" -cp "$work/cls" \
		org.apache.spark.executor.CoarseGrainedExecutorBackend --driver-url spark://d:1 \
		--executor-id "$i" --hostname 127.0.0.1 --cores 1 --app-id app-measure --resourceProfileId 0 \
		<"$work/in$i" >/dev/null &
	pids+=($!)
	exec {fd}>"$work/in$i" # hold stdin open
done
sleep 3
echo "== $n Spark-named JVMs, $(( n * 2 )) pyspark.daemon processes, $(ls -d /proc/[0-9]* | wc -l) processes on the node"

echo "== sparkdx: one cycle over the live /proc (BenchmarkCycleLive)"
(cd "$here" && "$work/agent.test" -test.run '^$' -test.bench 'CycleLive' -test.benchtime 50x -test.benchmem | grep Benchmark)

echo "== sparkdx agent --once (whole process: start, one cycle, JSON)"
/usr/bin/time -f "user %U s, sys %S s, peak RSS %M KB" "$work/sparkdx" agent --once >/dev/null

echo "== sparkdx agent --interval 1s, 10 cycles, /metrics scraped each second"
"$work/sparkdx" agent --interval 1s --listen 127.0.0.1:19877 2>/dev/null &
ap=$!
sleep 1.5
t0=$(ticks $ap)
for i in $(seq 1 10); do curl -s 127.0.0.1:19877/metrics >/dev/null; sleep 1; done
t1=$(ticks $ap)
echo "agent: $(( (t1 - t0) * 1000 / hz / 10 )) ms CPU per cycle+scrape, VmHWM $(awk '/VmHWM/{print $2, $3}' /proc/$ap/status), $(curl -s 127.0.0.1:19877/metrics | grep -c '^[a-z]') series"
kill $ap

echo "== jstat -gc PID (one call, one JVM)"
for i in 1 2 3; do /usr/bin/time -f "user %U s, sys %S s, peak RSS %M KB" jstat -gc "${pids[0]}" >/dev/null; done

echo "== prometheus-process-exporter (java and python3 groups, smaps on), 10 scrapes"
prometheus-process-exporter -procnames java,python3 -web.listen-address 127.0.0.1:19256 >/dev/null 2>&1 &
pe=$!
sleep 1.5
curl -s 127.0.0.1:19256/metrics >/dev/null
t0=$(ticks $pe)
for i in $(seq 1 10); do curl -s 127.0.0.1:19256/metrics >/dev/null; sleep 1; done
t1=$(ticks $pe)
echo "process-exporter: $(( (t1 - t0) * 1000 / hz / 10 )) ms CPU per scrape, VmHWM $(awk '/VmHWM/{print $2, $3}' /proc/$pe/status)"
kill $pe
