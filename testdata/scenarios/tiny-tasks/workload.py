# Tiny tasks: 2,000 numbers split into 400 partitions; scheduling costs
# more than the work.
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-tiny-tasks").getOrCreate()
sc = spark.sparkContext
assert sc.parallelize(range(2000), 400).map(lambda x: x + 1).sum() == sum(range(1, 2001))
spark.stop()
