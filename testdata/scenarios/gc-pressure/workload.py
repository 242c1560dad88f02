# GC pressure: a JVM-side aggregation that keeps many strings alive
# (collect_list over large groups) in executors whose young generation is
# pinned small (-Xmn16m, a GC flag copied from elsewhere): objects are
# promoted early and the old generation is collected again and again.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("scenario-gc-pressure").getOrCreate()
n = 3_000_000
df = (spark.range(0, n, numPartitions=2)
      .withColumn("k", F.col("id") % 8)
      .withColumn("s", F.expr("concat('row-', cast(id as string), '-', uuid())")))
rows = df.groupBy("k").agg(F.size(F.collect_list("s")).alias("n")).collect()
assert sum(r["n"] for r in rows) == n
spark.stop()
