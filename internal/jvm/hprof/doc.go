// Package hprof reads HotSpot heap dumps (HPROF "JAVA PROFILE 1.0.1/1.0.2",
// plain or gzip as written by jcmd GC.heap_dump -gz). It has three parts:
//
//   - The histogram (Read: read.go, scan.go, decode.go, classdump.go,
//     layout.go, jdk.go, histogram.go, top.go, strings.go, diff.go): one
//     streaming pass that turns a dump into the class histogram the JVM
//     itself would print (GC.class_histogram), plus the largest objects and
//     duplicate strings. It keeps counters per class, never the objects, so
//     its memory stays bounded whatever the dump size.
//   - Who holds the heap (ReadRetained: retained.go, graph.go,
//     graphscan.go, fused.go, pipe.go, dominator.go, semidom.go, paths.go,
//     frames.go, seek.go, retainedreport.go): the object graph and its dominator tree, over
//     two or three passes. This part does keep every object, as flat
//     arrays of a few bytes per node rather than as objects, and keeps in
//     memory only the arrays its current phase needs, the others in
//     unlinked temporary files (spill.go, spillmap_*.go, park.go).
//   - What it means to a Spark user (SparkNotes: spark.go, owners.go): the
//     classes and holders a Spark user recognises, retained memory grouped
//     by owner.
//
// Where the dump cannot say what the JVM's own histogram counts:
//   - with class data sharing (the default), GC.class_histogram also counts
//     archived java.lang.Class mirrors of classes not loaded yet, and, in
//     -all histograms without a full GC, mirrors of unloaded classes; the
//     heap dumper writes mirrors of loaded classes only, so java.lang.Class
//     can be lower here;
//   - JDK 19+ G1 filler arrays, which the JVM names
//     [Ljdk.internal.vm.FillerElement;, are written by the dumper as int[]
//     records and are counted in [I (they exist only in -all dumps taken
//     without a full GC); jdk.internal.vm.FillerObject instances and filler
//     object arrays are reported apart as Histogram.Fillers.
package hprof
