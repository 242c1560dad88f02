# A clean run whose first stage starts on fresh executors: each executor's
# first tasks pay deserialization, class loading and JIT warm-up (about a
# second) while the warm tasks after them take ~100 ms, on the same data.
# Neither data skew nor a straggler.
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("scenario-fresh-executors").getOrCreate()

df = spark.range(0, 4_800_000, numPartitions=48).select((F.col("id") % 100).alias("k"), F.col("id").alias("v"))
print("groups:", df.groupBy("k").agg(F.sum("v")).count())
spark.stop()
