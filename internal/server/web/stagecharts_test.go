package web

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
)

// TestStageCharts: every finished task is in one histogram bar; in the
// scatter the skewed task (ten times the data, ten times the time) stands
// out red at the right, the others blue by the median line.
func TestStageCharts(t *testing.T) {
	s := &model.StageAttempt{}
	add := func(id int64, ms, bytes int64) {
		k := &model.Task{TaskID: id, ExecutorID: "1", LaunchTime: 1000, FinishTime: 1000 + ms}
		k.SetMetrics(&model.TaskMetrics{ShuffleRead: model.ShuffleReadMetrics{RemoteBytesRead: bytes}})
		s.Tasks = append(s.Tasks, k)
	}
	for i := range int64(9) {
		add(i, 1000+10*i, 100<<20)
	}
	add(9, 10_000, 1000<<20)                                             // the skewed one
	s.Tasks = append(s.Tasks, &model.Task{TaskID: 10, LaunchTime: 1000}) // running: not drawn
	c := newStageCharts(s)
	if c == nil || c.Hist == nil || c.Scatter == nil {
		t.Fatalf("charts %+v", c)
	}
	n := 0
	for _, b := range c.Hist.Bars {
		var k int
		if _, err := fmt.Sscan(b.Label, &k); err != nil {
			t.Fatal(err)
		}
		n += k
	}
	if n != 10 {
		t.Errorf("histogram holds %d tasks, want the 10 finished", n)
	}
	if len(c.Scatter.Dots) != 10 || c.Scatter.BytesMeasure != "shuffle read" {
		t.Fatalf("scatter: %d dots measuring %q", len(c.Scatter.Dots), c.Scatter.BytesMeasure)
	}
	slow := 0
	for _, d := range c.Scatter.Dots {
		if d.Slow {
			slow++
			if !strings.Contains(d.Label, "task 9 ") || d.X < c.Scatter.W-2*plotPad {
				t.Errorf("slow dot %+v: want task 9 at the right edge", d)
			}
		}
	}
	if slow != 1 {
		t.Errorf("%d slow dots, want the skewed task only", slow)
	}
	if newStageCharts(&model.StageAttempt{}) != nil {
		t.Error("charts for a stage without finished tasks")
	}
}

// TestStageChartsImpossibleTimes: a task that ends before it starts, or at
// ±2^63, is drawn at 0 or at the longest length instead of panicking on a
// negative or overflowed histogram index (issue 32, item 4).
func TestStageChartsImpossibleTimes(t *testing.T) {
	s := &model.StageAttempt{}
	for i, lf := range [][2]int64{{2000, 1000}, {1000, 1500}, {math.MinInt64 + 1, math.MaxInt64}, {5, 1 << 60}, {1000, 1200}} {
		k := &model.Task{TaskID: int64(i), LaunchTime: lf[0], FinishTime: lf[1]}
		k.SetMetrics(&model.TaskMetrics{InputBytesRead: math.MaxInt64 - int64(i)})
		s.Tasks = append(s.Tasks, k)
	}
	c := newStageCharts(s)
	if c == nil || c.Hist == nil {
		t.Fatal("no charts")
	}
	n := 0
	for _, b := range c.Hist.Bars {
		var k int
		fmt.Sscan(b.Label, &k)
		n += k
		if b.H < 0 || b.Y < 0 || b.X < 0 {
			t.Errorf("bar %+v outside the picture", b)
		}
	}
	if n != 5 {
		t.Errorf("histogram holds %d tasks, want 5", n)
	}
	for _, d := range c.Scatter.Dots {
		if d.X < 0 || d.X > c.Scatter.W || d.Y < 0 || d.Y > c.Scatter.H {
			t.Errorf("dot %+v outside the picture", d)
		}
	}
}
