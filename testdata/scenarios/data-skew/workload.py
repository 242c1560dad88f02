# Data skew: 90 % of the rows share one key, so after the shuffle one task
# of the grouping stage does almost all the work.
import time
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-data-skew").getOrCreate()
sc = spark.sparkContext


def key(i):
    return 0 if i < 180_000 else i % 97


def work(rows):
    n = 0
    for k, v in rows:
        n += v
        if n % 500 == 0:
            time.sleep(0.005)  # per-row work: ~1.8 s for the hot key, ~25 ms for the others
    yield n


pairs = sc.parallelize(range(200_000), 4).map(lambda i: (key(i), 1))
total = pairs.partitionBy(8, lambda k: k % 8).mapPartitions(work).sum()  # skewed stage
assert total == 200_000
spark.stop()
