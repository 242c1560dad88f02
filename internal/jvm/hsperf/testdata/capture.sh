#!/usr/bin/env bash
# Captures the fixtures in this directory from real JVMs: for each JDK and
# collector it runs Workload.java, copies the JVM's hsperfdata file while the
# JVM is idle, and records `jstat -gc` and `jstat -class` for that moment.
# usage: testdata/capture.sh JAVA_HOME NAME GCFLAG  (e.g. ... jdk17-g1 -XX:+UseG1GC)
set -euo pipefail
jdk=$1 name=$2 gc=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$jdk/bin/javac" -d "$tmp" "$here/Workload.java"
mkfifo "$tmp/in"
"$jdk/bin/java" "$gc" -Xmx256m -cp "$tmp" Workload <"$tmp/in" >"$tmp/out" &
pid=$!
exec 3>"$tmp/in"
for cmd in "threads 5" "alloc 64" "classes 300" "gc" "drop" "gc" "classes 50" "alloc 24"; do
	echo "$cmd" >&3
done
# Each command answers "ok"; the first "ok" is the start-up banner.
until [ "$(grep -c '^ok$' "$tmp/out")" -ge 9 ]; do sleep 0.1; done
# Concurrent collectors (ZGC, Shenandoah) go on collecting after the last
# allocation; let them finish so that the copy and jstat see the same state.
sleep 3
file=/tmp/hsperfdata_$(id -un)/$pid
cp "$file" "$here/$name.hsperf"
"$jdk/bin/jstat" -gc "$pid" >"$here/$name.jstat-gc"
"$jdk/bin/jstat" -class "$pid" >"$here/$name.jstat-class"
exec 3>&-
wait "$pid"
