package sqlplan

import "strings"

// v2CustomPrefix starts a DataSource V2 custom metric's type; the class of
// the metric follows it.
const v2CustomPrefix = "v2Custom_"

// pythonCustomMetric is the one custom metric class Spark 4.3's own
// distribution can load with no arguments: Python data sources' metrics,
// aggregated as a size metric without a task to credit.
const pythonCustomMetric = "org.apache.spark.sql.execution.datasources.v2.python.PythonCustomMetric"

// CustomValue is how Spark 4.3's History Server shows a DataSource V2
// custom metric (type "v2Custom_<class>"): it loads the class and lets it
// aggregate the task values; a class not on its own classpath (a
// vendor's, a connector's) shows "N/A". ok is false for a built-in metric
// type, which StringValue formats.
func CustomValue(metricType string, values []int64) (s string, ok bool) {
	class, ok := strings.CutPrefix(metricType, v2CustomPrefix)
	if !ok {
		return "", false
	}
	if class == pythonCustomMetric {
		return StringValue(Size, values, nil), true
	}
	return "N/A", true
}
