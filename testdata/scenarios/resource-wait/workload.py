# Waiting for executors: submitted to a cluster with no Worker; a Worker
# joins about 25 s later and the job then runs quickly.
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-resource-wait").getOrCreate()
assert spark.range(0, 100_000, numPartitions=2).selectExpr("sum(id) as s").collect()[0]["s"] == sum(range(100_000))
spark.stop()
