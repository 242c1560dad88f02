# The what-if check's workload: tasks whose time does not depend on how
# many executors share the machine (they wait, as tasks calling a service
# or reading a slow store do), so that running it on 1, 2 and 4 executors
# measures the schedule, not the test machine's cores.
import time

from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("whatif-check").getOrCreate()
sc = spark.sparkContext


def wait(seconds):
    def run(rows):
        time.sleep(seconds)
        return rows
    return run


# 24 map tasks of 1.5 s, a shuffle, 4 reduce tasks of 1 s.
pairs = sc.parallelize(range(2400), 24).mapPartitions(wait(1.5)).map(lambda x: (x % 4, 1))
counts = pairs.reduceByKey(lambda a, b: a + b, 4).mapPartitions(wait(1.0)).collect()
assert sum(c for _, c in counts) == 2400
spark.stop()
