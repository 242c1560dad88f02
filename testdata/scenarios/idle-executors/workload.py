# Idle executors: four executors are held while the driver works alone
# (Python on the driver) and while one long task runs.
import time
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-idle-executors").getOrCreate()
sc = spark.sparkContext
assert sc.parallelize(range(100), 4).sum() == 4950
time.sleep(45)  # driver-side work: every executor idles
assert sc.parallelize(range(10), 1).map(lambda x: time.sleep(1) or x).sum() == 45
spark.stop()
