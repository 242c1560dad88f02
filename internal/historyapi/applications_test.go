package historyapi

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestRunningCompletedLists is SPARK-39620: an application is running when
// its newest attempt is, whatever older attempts did.
func TestRunningCompletedLists(t *testing.T) {
	cases := []struct {
		dir                string
		running, completed int
	}{
		{"last-attempt-incomplete", 1, 0},
		{"previous-attempt-incomplete", 0, 1},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			api := loadDir(t, sparktest.Path(t, "extra", "spark-events-broken", c.dir))
			for status, want := range map[string]int{"running": c.running, "completed": c.completed} {
				v, err := api.Get("applications?status=" + status)
				if err != nil {
					t.Fatal(err)
				}
				if got := len(v.([]any)); got != want {
					t.Errorf("status=%s: got %d apps, want %d", status, got, want)
				}
			}
		})
	}
}

func TestAppListLimitAndBadParams(t *testing.T) {
	api := loadDir(t, sparktest.Path(t, "spark-events"))
	v, err := api.Get("applications?limit=2")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(v.([]any)); got != 2 {
		t.Errorf("limit=2: got %d apps, want 2", got)
	}
	for _, p := range []string{"applications?status=sleeping", "applications?minDate=yesterday", "applications?limit=x"} {
		if _, err := api.Get(p); err == nil {
			t.Errorf("%s: got no error, want one", p)
		}
	}
}
