# The recurring job of the regression series (README.md): read a directory
# of CSV files (one scan task per file), aggregate by key after a shuffle
# of spark.sql.shuffle.partitions partitions, and hand each partition of
# the result to a sink. The per-row work of the scan and the sink's
# per-partition set-up (a connection opened, say) are fixed delays, so that
# the run time follows the input, the partitions and the executors rather
# than the load of the machine that records it (two shared cores).
import sys
import time

from pyspark.sql import SparkSession, functions as F
from pyspark.sql.types import DoubleType, IntegerType, StructField, StructType

ROW_DELAY = 200e-6     # seconds per input row: 4 s a file of 20,000 rows
SINK_SETUP = 0.1       # seconds per result partition


def parse(rows):
    for n, r in enumerate(rows, 1):
        k, v = r.value.split(",")
        if n % 1000 == 0:
            time.sleep(1000 * ROW_DELAY)
        yield (int(k) % 64, float(v))


def sink(rows):
    time.sleep(SINK_SETUP)
    for _ in rows:
        pass


spark = SparkSession.builder.appName("regress-series").getOrCreate()
schema = StructType([StructField("k", IntegerType()), StructField("v", DoubleType())])
pairs = spark.createDataFrame(spark.read.text(sys.argv[1]).rdd.mapPartitions(parse), schema)
pairs.groupBy("k").agg(F.sum("v").alias("v"), F.count("*").alias("n")).foreachPartition(sink)
spark.stop()
