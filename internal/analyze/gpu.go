package analyze

import (
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// GPUStage is what the RAPIDS Accelerator's task metrics (its
// GpuTaskMetrics accumulators, named gpu…) say of one stage attempt: the
// time its tasks waited for the GPU, spilled GPU memory, and retried after
// running out of it. Spark's own "memory spilled" of such a stage is GPU
// device memory spilled to host memory, not execution memory to disk.
type GPUStage struct {
	Has                bool  // the stage carries any of the metrics
	SemaphoreWaitMs    int64 // gpuSemaphoreWait: waiting for a turn on the GPU
	SpillToHostMs      int64 // gpuSpillDevice2HostTime
	SpillToDiskMs      int64 // gpuSpillDevice2DiskTime + gpuSpillHost2DiskTime
	ReadSpillMs        int64 // gpuUnspill*: reading spilled buffers back
	RetryCount         int64 // gpuRetryCount: GPU OOMs retried
	SplitRetryCount    int64 // gpuSplitAndRetryCount: GPU OOMs retried on split input
	RetryBlockMs       int64 // gpuRetryBlockTime: blocked waiting for memory to retry
	RetryComputationMs int64 // gpuRetryComputationTime: work lost to retries
}

// gpuStage reads the RAPIDS accumulators among a stage's accumulables.
// Their values are strings: a count ("5") or, for the nanosecond timers,
// "HH:MM:SS.sss" (the plugin's NanoTime.toString).
func gpuStage(s *model.StageAttempt) GPUStage {
	var g GPUStage
	for i := range s.Accumulables {
		acc := &s.Accumulables[i]
		if !strings.HasPrefix(acc.Name, "gpu") {
			continue
		}
		ms, n := gpuValue(acc.Value)
		switch acc.Name {
		case "gpuSemaphoreWait":
			g.SemaphoreWaitMs += ms
		case "gpuSpillDevice2HostTime":
			g.SpillToHostMs += ms
		case "gpuSpillDevice2DiskTime", "gpuSpillHost2DiskTime":
			g.SpillToDiskMs += ms
		case "gpuUnspillHost2DeviceTime", "gpuUnspillDisk2DeviceTime", "gpuUnspillDisk2HostTime":
			g.ReadSpillMs += ms
		case "gpuRetryCount":
			g.RetryCount += n
		case "gpuSplitAndRetryCount":
			g.SplitRetryCount += n
		case "gpuRetryBlockTime":
			g.RetryBlockMs += ms
		case "gpuRetryComputationTime":
			g.RetryComputationMs += ms
		default:
			continue
		}
		g.Has = true
	}
	return g
}

// gpuValue reads an accumulator value: "00:01:02.500" as 62500 ms, or a
// plain integer as a count (and as milliseconds of nanoseconds, for a
// timer some versions write as a number).
func gpuValue(v string) (ms, n int64) {
	v = strings.TrimSpace(v)
	if parts := strings.Split(v, ":"); len(parts) == 3 {
		h, err1 := strconv.ParseInt(parts[0], 10, 64)
		m, err2 := strconv.ParseInt(parts[1], 10, 64)
		sec, err3 := strconv.ParseFloat(parts[2], 64)
		if err1 != nil || err2 != nil || err3 != nil || h < 0 || m < 0 || !(sec >= 0) || h > 1e6 || m > 1e6 || sec > 1e9 {
			return 0, 0
		}
		return (h*3600+m*60)*1000 + int64(sec*1000+0.5), 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, 0
	}
	return n / 1e6, n
}

// IsGPUOOM tells whether an exception class is the RAPIDS Accelerator
// running out of GPU memory (after its retries, when split-and-retry
// could not split the input further).
func IsGPUOOM(class string) bool {
	for _, s := range []string{"GpuSplitAndRetryOOM", "GpuRetryOOM", "GpuOOM", "RmmException", "CudfColumnSizeOverflow"} {
		if strings.Contains(class, s) {
			return true
		}
	}
	return false
}
