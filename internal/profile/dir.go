package profile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxProfileFile bounds what ReadAppProfiles reads of one file: an
// agent's 30 s recording of a busy executor is well under a MB of
// collapsed stacks.
const maxProfileFile = 64 << 20

// AppFiles lists the CPU profiles of application appID in dir: the
// collapsed files whose name starts with the id and a '-' or '.'
// (`sparkdx agent --profile` writes app-…-0042-3-pid4711-20261128T095631Z.cpu.collapsed;
// `sparkdx profile --format collapsed -o app-…-0042.collapsed` fits too),
// but those of native or allocation samples, sorted by name.
func AppFiles(dir, appID string) ([]string, error) {
	if appID == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("profiles: %w", err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, appID)
		if !ok || rest == "" || (rest[0] != '-' && rest[0] != '.') || !strings.HasSuffix(name, ".collapsed") || !e.Type().IsRegular() {
			continue
		}
		if strings.HasSuffix(name, "."+string(Native)+".collapsed") || strings.HasSuffix(name, "."+string(Alloc)+".collapsed") {
			continue
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out, nil
}

// ReadAppProfiles adds up the CPU profiles AppFiles finds for appID in
// dir into one profile; nil when there is none.
func ReadAppProfiles(dir, appID string) (*Profile, []string, error) {
	names, err := AppFiles(dir, appID)
	if err != nil || len(names) == 0 {
		return nil, nil, err
	}
	p := &Profile{Kind: CPU}
	for _, name := range names {
		from := len(p.Samples)
		if err := readFileInto(p, filepath.Join(dir, name)); err != nil {
			return nil, nil, err
		}
		if exec := fileExecutor(name, appID); exec != "" {
			for i := from; i < len(p.Samples); i++ {
				if p.Samples[i].Executor == "" {
					p.Samples[i].Executor = exec
				}
			}
		}
	}
	return p, names, nil
}

// fileExecutor is the executor a profile file's name gives after the
// application id: APP-EXEC-pidN-TIME.… as the agent names its files; ""
// for any other name (sparkdx profile -o APP.collapsed).
func fileExecutor(name, appID string) string {
	rest, ok := strings.CutPrefix(name, appID+"-")
	if !ok {
		return ""
	}
	i := strings.LastIndex(rest, "-pid")
	if i <= 0 {
		return ""
	}
	return rest[:i]
}

func readFileInto(p *Profile, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("profiles: %w", err)
	}
	defer f.Close()
	lr := &io.LimitedReader{R: f, N: maxProfileFile + 1}
	if err := ReadCollapsed(p, lr, path); err != nil {
		return err
	}
	if lr.N == 0 {
		return errors.New("profiles: " + path + ": larger than 64 MiB")
	}
	return nil
}
