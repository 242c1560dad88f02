# GC pressure: a JVM-side aggregation that builds many short- and
# long-lived objects (collect_list over large groups) in a small heap.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("scenario-gc-pressure").getOrCreate()
df = spark.range(0, 3_000_000, numPartitions=2).withColumn("k", F.col("id") % 8).withColumn("s", F.expr("cast(id as string)"))
rows = df.groupBy("k").agg(F.size(F.collect_list("s")).alias("n")).collect()
assert sum(r["n"] for r in rows) == 3_000_000
spark.stop()
