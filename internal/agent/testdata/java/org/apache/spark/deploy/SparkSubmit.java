package org.apache.spark.deploy;

/** Stands in for Spark's spark-submit driver main class (same name, test load). */
public final class SparkSubmit {
    public static void main(String[] args) throws Exception { sdx.Load.run(args); }
}
