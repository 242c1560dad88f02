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
            # per-row work: ~7 s for the hot key, ~100 ms for the others —
            # longer than Spark's 3 s locality wait, so that the hot task
            # sets the stage's end however late it starts (at 1.8 s a run
            # whose other tasks waited out the locality wait ended after the
            # hot task: the stage's time was the wait's, not the skew's)
            time.sleep(0.02)
    yield n


pairs = sc.parallelize(range(200_000), 4).map(lambda i: (key(i), 1))
total = pairs.partitionBy(8, lambda k: k % 8).mapPartitions(work).sum()  # skewed stage
assert total == 200_000
spark.stop()
