package delta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

const logDir = "_delta_log/"

// snapshot is the table state at one version, rebuilt by action
// reconciliation: the last protocol and metaData win, add/remove by path,
// the latest txn per appId.
type snapshot struct {
	version  int64 // -1: no table yet
	protocol *Protocol
	meta     *MetaData
	files    map[string]*Add
	removes  map[string]*Remove
	txns     map[string]Txn
}

func newSnapshot() *snapshot {
	return &snapshot{version: -1, files: map[string]*Add{}, removes: map[string]*Remove{}, txns: map[string]Txn{}}
}

func (s *snapshot) apply(actions []Action) {
	for _, a := range actions {
		switch {
		case a.Protocol != nil:
			s.protocol = a.Protocol
		case a.MetaData != nil:
			s.meta = a.MetaData
		case a.Add != nil:
			s.files[a.Add.Path] = a.Add
			delete(s.removes, a.Add.Path)
		case a.Remove != nil:
			delete(s.files, a.Remove.Path)
			s.removes[a.Remove.Path] = a.Remove
		case a.Txn != nil:
			s.txns[a.Txn.AppID] = *a.Txn
		}
	}
}

func commitName(v int64) string { return fmt.Sprintf("%020d.json", v) }

func checkpointName(v int64) string { return fmt.Sprintf("%020d.checkpoint.parquet", v) }

// logListing is what a _delta_log listing says: commit versions present and
// classic single-file checkpoints.
type logListing struct {
	commits     []int64
	checkpoints []int64
}

func parseListing(names []string) logListing {
	var l logListing
	for _, n := range names {
		base, ok := strings.CutSuffix(n, ".json")
		if ok && len(base) == 20 {
			if v, err := strconv.ParseInt(base, 10, 64); err == nil {
				l.commits = append(l.commits, v)
			}
			continue
		}
		base, ok = strings.CutSuffix(n, ".checkpoint.parquet")
		if ok && len(base) == 20 {
			if v, err := strconv.ParseInt(base, 10, 64); err == nil {
				l.checkpoints = append(l.checkpoints, v)
			}
		}
	}
	return l
}

// loadSnapshot rebuilds the latest snapshot: from the newest readable
// checkpoint, then every later commit, which must be contiguous.
func loadSnapshot(ctx context.Context, st Storage) (*snapshot, error) {
	names, err := st.List(ctx, logDir)
	if err != nil {
		return nil, err
	}
	l := parseListing(names)
	s := newSnapshot()
	for i := len(l.checkpoints) - 1; i >= 0; i-- {
		v := l.checkpoints[i]
		data, err := st.Get(ctx, logDir+checkpointName(v))
		if err != nil {
			continue
		}
		actions, err := decodeCheckpoint(checkpointName(v), data)
		if err != nil {
			continue // a damaged checkpoint is skipped; the commits still hold the state
		}
		s.apply(actions)
		s.version = v
		break
	}
	if err := s.catchUp(ctx, st, l.commits); err != nil {
		return nil, err
	}
	return s, nil
}

// update applies commits newer than s.version.
func (s *snapshot) update(ctx context.Context, st Storage) error {
	names, err := st.List(ctx, logDir)
	if err != nil {
		return err
	}
	return s.catchUp(ctx, st, parseListing(names).commits)
}

func (s *snapshot) catchUp(ctx context.Context, st Storage, commits []int64) error {
	for _, v := range commits {
		if v <= s.version {
			continue
		}
		if v != s.version+1 {
			return fmt.Errorf("delta: %s%s: log has a gap: version %d follows %d", logDir, commitName(v), v, s.version)
		}
		if err := s.applyCommit(ctx, st, v); err != nil {
			return err
		}
	}
	return nil
}

func (s *snapshot) applyCommit(ctx context.Context, st Storage, v int64) error {
	data, err := st.Get(ctx, logDir+commitName(v))
	if err != nil {
		return err
	}
	actions, err := decodeCommit(logDir+commitName(v), data)
	if err != nil {
		return err
	}
	s.apply(actions)
	s.version = v
	return nil
}

// readLastCheckpoint returns _last_checkpoint, or ok=false when absent.
func readLastCheckpoint(ctx context.Context, st Storage) (lastCheckpoint, bool, error) {
	var lc lastCheckpoint
	data, err := st.Get(ctx, logDir+"_last_checkpoint")
	if errors.Is(err, ErrNotExist) {
		return lc, false, nil
	}
	if err != nil {
		return lc, false, err
	}
	if err := json.Unmarshal(data, &lc); err != nil {
		return lc, false, fmt.Errorf("delta: %s_last_checkpoint: %w", logDir, err)
	}
	return lc, true, nil
}
