# An SQL query with adaptive query execution: a join and an aggregation
# whose shuffle partitions AQE coalesces.
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-sql-aqe").getOrCreate()
spark.range(0, 200_000, numPartitions=4).selectExpr("id", "id % 1000 as k").createOrReplaceTempView("facts")
spark.range(0, 1000, numPartitions=2).selectExpr("id as k", "concat('name-', id) as name").createOrReplaceTempView("dims")
rows = spark.sql("""
    SELECT d.name, count(*) AS n, sum(f.id) AS s
    FROM facts f JOIN dims d ON f.k = d.k
    GROUP BY d.name ORDER BY n DESC LIMIT 10
""").collect()
assert len(rows) == 10
spark.stop()
