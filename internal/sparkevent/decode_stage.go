package sparkevent

import (
	"github.com/valyala/fastjson"

	"github.com/sparkdx/sparkdx/internal/model"
)

func (d *Decoder) stageInfo(v *fastjson.Value) StageInfo {
	if v == nil {
		return StageInfo{SubmissionTime: model.NoTime, CompletionTime: model.NoTime}
	}
	s := StageInfo{
		StageID: v.GetInt("Stage ID"), AttemptID: v.GetInt("Stage Attempt ID"),
		Name: str(v, "Stage Name"), Details: str(v, "Details"), NumTasks: v.GetInt("Number of Tasks"),
		ParentIDs:      ints(v.Get("Parent IDs")),
		SubmissionTime: getTime(v, "Submission Time"), CompletionTime: getTime(v, "Completion Time"),
		Accumulables:         d.accumulables(v.Get("Accumulables"), true, nil),
		AccumulableCount:     len(v.GetArray("Accumulables")),
		ResourceProfileID:    v.GetInt("Resource Profile Id"),
		IsShufflePushEnabled: v.GetBool("Shuffle Push Enabled"),
		ShuffleMergersCount:  v.GetInt("Shuffle Push Mergers Count"),
	}
	if f := v.Get("Failure Reason"); f != nil && f.Type() == fastjson.TypeString {
		s.FailureReason, s.HasFailureReason = str(v, "Failure Reason"), true
	}
	for _, r := range v.GetArray("RDD Info") {
		sl := r.Get("Storage Level")
		ri := RDDInfo{ID: r.GetInt("RDD ID"), Name: str(r, "Name"), NumPartitions: r.GetInt("Number of Partitions")}
		if sl != nil {
			ri.UseDisk, ri.UseMemory = sl.GetBool("Use Disk"), sl.GetBool("Use Memory")
			ri.UseOffHeap, ri.Deserialized = sl.GetBool("Use Off Heap"), sl.GetBool("Deserialized")
			ri.Replication = sl.GetInt("Replication")
		}
		s.RDDs = append(s.RDDs, ri)
	}
	return s
}

func (d *Decoder) jobStart(v *fastjson.Value) Event {
	e := JobStart{JobID: v.GetInt("Job ID"), Time: getTime(v, "Submission Time"),
		StageIDs: ints(v.Get("Stage IDs")), Props: jobProps(v.Get("Properties"))}
	for _, s := range v.GetArray("Stage Infos") {
		e.Stages = append(e.Stages, d.stageInfo(s))
	}
	return &e
}
