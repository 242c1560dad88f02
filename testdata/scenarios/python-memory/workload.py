# Python worker memory: each task builds a large Python structure, so the
# PySpark workers' RSS grows far past the JVM's.
import time

from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-python-memory").getOrCreate()
sc = spark.sparkContext


def hog(rows):
    big = [str(i) * 4 for i in range(4_500_000)]  # about 400 MB in the worker, past its overhead budget
    time.sleep(3)  # held while the executor samples process-tree memory
    yield len(big) + sum(1 for _ in rows)


assert sc.parallelize(range(100), 2).mapPartitions(hog).sum() == 2 * 4_500_000 + 100
spark.stop()
