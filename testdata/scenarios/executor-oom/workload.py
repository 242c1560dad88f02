# Executors that run out of heap: the table is shuffled by key first, so
# the whole aggregation runs on the reduce side, where one group collects a
# quarter of the rows, each with a 600-character value, into one task
# (collect_list): about 600 MiB, which a 512 MiB executor heap cannot hold.
# The JVM dies with OutOfMemoryError (exit code 52) on each attempt; the
# other tasks of the stage lose the shuffle output the dead executors held
# ("Missing an output location") and the job fails.
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("scenario-executor-oom").getOrCreate()

df = spark.range(0, 4_000_000, numPartitions=8).select(
    F.when(F.col("id") % 4 == 0, F.lit(0)).otherwise(F.col("id") % 64).alias("k"),
    F.when(F.col("id") % 4 == 0, F.repeat(F.lit("x"), 600)).otherwise(F.lit("y")).alias("v"))
try:
    df.repartition(8, "k").groupBy("k").agg(F.collect_list("v").alias("vs")) \
        .select("k", F.size("vs").alias("n")).collect()
except Exception as e:
    print("job failed:", type(e).__name__)
spark.stop()
