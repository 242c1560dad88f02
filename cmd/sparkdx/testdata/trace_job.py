"""A classic PySpark application for trace_caller.py submit: its first job
runs under the application (the submit-time spark.otel.traceparent is in
its properties too), its second under the tag "traceparent=<argv[1]>"."""

import sys

from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
spark.addTag("sparkdx-case=submit")
spark.range(1000).selectExpr("sum(id)").collect()
spark.clearTags()
spark.addTag("sparkdx-case=submit-tag")
spark.addTag("traceparent=" + sys.argv[1])
spark.range(1000).selectExpr("sum(id)").collect()
spark.clearTags()
spark.stop()
