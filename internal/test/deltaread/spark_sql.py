"""Runs SQL statements in Apache Spark with Delta Lake and prints the rows
of the last one as JSON (timestamps as epoch milliseconds, UTC).

usage: spark_sql.py < statements.json   (a JSON list of statements)
The Delta jars come in SPARKDX_DELTA_JARS (comma-separated paths)."""
import calendar
import datetime
import json
import os
import sys

from pyspark.sql import SparkSession

statements = json.load(sys.stdin)
spark = (
    SparkSession.builder.master("local[2]")
    .appName("sparkdx-delta-sql")
    .config("spark.jars", os.environ["SPARKDX_DELTA_JARS"])
    .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
    .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
    .config("spark.sql.session.timeZone", "UTC")
    .config("spark.ui.enabled", "false")
    .config("spark.sql.shuffle.partitions", "2")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")
rows = []
for s in statements:
    rows = spark.sql(s).collect()


def plain(v):
    if isinstance(v, datetime.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return calendar.timegm(v.timetuple()) * 1000 + v.microsecond // 1000
    if isinstance(v, (datetime.date,)):
        return v.isoformat()
    return v


out = [[plain(v) for v in r] for r in rows]
spark.stop()
json.dump(out, sys.stdout)
