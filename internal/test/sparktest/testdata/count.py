# A two-stage PySpark job: a Python map, a shuffle, a count.
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("sparktest-count").getOrCreate()
sc = spark.sparkContext
n = sc.parallelize(range(1000), 4).map(lambda x: (x % 10, 1)).reduceByKey(lambda a, b: a + b).count()
print("keys", n)
spark.stop()
