# Close to out of memory: a hash aggregation over 30 million distinct keys
# in two tasks, in 1 GiB executors that give Spark 90 % of the heap: the
# aggregation's hash map fills execution memory (and spills), so the live
# heap stays near its limit, with full GCs.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("scenario-oom-risk").getOrCreate()
ids = spark.range(0, 40_000_000, numPartitions=2)
keys = ids.select((F.col("id") * 7919 % 30_000_000).alias("k"), F.col("id").alias("v"))
assert keys.groupBy("k").agg(F.max("v").alias("m")).count() == 30_000_000
spark.stop()
