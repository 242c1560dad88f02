package model

import "testing"

func TestPackTaskKeepsNoPointer(t *testing.T) {
	s := &StageAttempt{}
	tasks := []*Task{{TaskID: 1}, {TaskID: 2}, {TaskID: 3}}
	for _, x := range tasks {
		s.AddTask(x)
	}
	for _, x := range []*Task{tasks[1], tasks[0], tasks[2]} {
		s.PackTask(x)
		// A pointer past the length keeps the packed task alive.
		for i, y := range s.Tasks[:cap(s.Tasks)] {
			if y == x {
				t.Errorf("after packing task %d: slot %d of Tasks (length %d) still holds it", x.TaskID, i, len(s.Tasks))
			}
		}
	}
	if got := s.TaskCount(); got != 3 {
		t.Errorf("got %d tasks, want 3", got)
	}
	if s.Tasks != nil {
		t.Errorf("every task packed: got Tasks %v, want none kept", s.Tasks)
	}
}
