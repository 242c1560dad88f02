# A large collect(): about 150 MB of hard-to-compress task results pulled to the
# driver.
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-large-collect").getOrCreate()
rows = spark.range(0, 600_000, numPartitions=4).selectExpr(
    "id", "concat(sha2(cast(id as string), 512), sha2(cast(-id as string), 512)) as s").collect()
assert len(rows) == 600_000
spark.stop()
