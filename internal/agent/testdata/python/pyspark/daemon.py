"""Stands in for pyspark.daemon: forks one worker, then both wait for the
JVM to close stdin."""
import os
import sys

if os.fork() == 0:
    # The forked worker keeps the daemon's command line, as PySpark's do.
    sys.stdin.read()
    os._exit(0)
sys.stdin.read()
