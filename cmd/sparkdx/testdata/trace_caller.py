"""A stand-in for an Airflow task that hands its OpenTelemetry context to
Spark, the ways docs/recipes/observability/observability-stack.md gives.

    trace_caller.py connect sc://HOST:PORT
        A Spark Connect client: a job with no context, a job under
        spark.conf.set("spark.otel.traceparent", ...), a job under the tag
        "traceparent=...", and a job after both are taken away.
    trace_caller.py submit SPARK_SUBMIT ARG... PROGRAM
        spark-submit --conf spark.otel.traceparent=<the task's span> ...
        PROGRAM <a child span's traceparent> (trace_job.py tags its second
        job with it).

Each job carries the tag "sparkdx-case=<case>"; for each case the program
prints "<case> <traceparent>" (the span that should own its jobs; "-" for
none).
"""

import subprocess
import sys

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

trace.set_tracer_provider(TracerProvider())
tracer = trace.get_tracer("sparkdx-test-airflow-task")


def traceparent():
    """The W3C traceparent of the current span, as a propagator writes it."""
    carrier = {}
    TraceContextTextMapPropagator().inject(carrier)
    return carrier["traceparent"]


def job(spark, case):
    spark.addTag("sparkdx-case=" + case)
    spark.range(1000).selectExpr("sum(id)").collect()
    spark.removeTag("sparkdx-case=" + case)


def connect(url):
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(url).getOrCreate()
    job(spark, "none")
    print("none -", flush=True)
    with tracer.start_as_current_span("airflow task (spark.conf.set)"):
        tp = traceparent()
        spark.conf.set("spark.otel.traceparent", tp)
        job(spark, "conf")
        spark.conf.unset("spark.otel.traceparent")
        print("conf", tp, flush=True)
    with tracer.start_as_current_span("airflow task (addTag)"):
        tp = traceparent()
        spark.addTag("traceparent=" + tp)
        job(spark, "tag")
        spark.removeTag("traceparent=" + tp)
        print("tag", tp, flush=True)
    job(spark, "after")
    print("after -", flush=True)
    spark.stop()


def submit(argv):
    with tracer.start_as_current_span("airflow task (spark-submit)"):
        tp = traceparent()
        with tracer.start_as_current_span("spark step"):
            step = traceparent()
        args = [argv[0], "--conf", "spark.otel.traceparent=" + tp] + argv[1:] + [step]
        subprocess.run(args, check=True, stdout=sys.stderr)
    print("submit", tp, flush=True)
    print("submit-tag", step, flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "connect":
        connect(sys.argv[2])
    else:
        submit(sys.argv[2:])
