package org.apache.spark.executor;

/** Stands in for Spark's executor main class (same name, test load). */
public final class CoarseGrainedExecutorBackend {
    public static void main(String[] args) throws Exception { sdx.Load.run(args); }
}
