# Many small output files: a few thousand rows written as 200 Parquet files.
import sys
from pyspark.sql import SparkSession

out = sys.argv[1]
spark = SparkSession.builder.appName("scenario-small-files").getOrCreate()
spark.range(0, 4000, numPartitions=1).repartition(200).write.mode("overwrite").parquet(out + "/small")
spark.stop()
