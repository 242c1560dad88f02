# Dynamic allocation on a standalone cluster (no external shuffle service:
# shuffle tracking): a wide job asks for executors, the driver then works
# alone long enough for them to idle out and be removed, and a second job
# asks for executors again. The event log records executors added, removed
# by the driver ("Executor killed by driver." with its idle reason) and
# added again, the executor lifecycle the dashboards draw.
import time
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-dynamic-allocation").getOrCreate()
sc = spark.sparkContext
slow = lambda x: time.sleep(0.2) or x
assert sc.parallelize(range(80), 40).map(slow).map(lambda x: (x % 4, x)).reduceByKey(lambda a, b: a + b).count() == 4
time.sleep(25)  # executorIdleTimeout and the shuffle tracking timeout are 5 s: both executors go
assert sc.parallelize(range(80), 40).map(slow).sum() == 3160
spark.stop()
