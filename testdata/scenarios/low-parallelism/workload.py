# Low parallelism: 48 million ids hashed in one partition (a coalesce(1)
# or a single input file does this) while the cluster has four cores: one
# core works for the whole stage, three sit idle.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("scenario-low-parallelism").getOrCreate()
ids = spark.range(0, 48_000_000, numPartitions=1)
h = F.sha2(F.sha2(F.col("id").cast("string"), 512), 512)
row = ids.select(h.alias("h")).agg(F.max(F.xxhash64("h")).alias("m")).collect()[0]
assert row.m is not None
spark.stop()
