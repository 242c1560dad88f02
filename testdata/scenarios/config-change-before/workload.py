# Configuration change: one join and sort, run twice with
# different configuration and nothing else different. config-change-before
# runs it with 4 shuffle partitions, 5 % of the heap for execution and
# storage memory and no broadcast joins (the dimension table is shuffled
# and sorted too), so the sorts spill; config-change-after runs the same
# file with 8 partitions, Spark's default memory fraction and a 10 MB
# broadcast threshold. `sparkdx diff` must name those settings.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("scenario-config-change").getOrCreate()
facts = (spark.range(0, 600_000, numPartitions=4)
         .select("id", (F.col("id") % 1000).alias("k"), F.expr("repeat('x', 40)").alias("s"), F.rand(7).alias("r")))
dims = spark.range(0, 1000, numPartitions=1).select(F.col("id").alias("k"), F.concat(F.lit("name-"), F.col("id")).alias("name"))
# One action: the join (sort-merge or broadcast), then a sort of its rows.
facts.join(dims, "k").orderBy("r").write.format("noop").mode("overwrite").save()  # nothing is kept
spark.stop()
