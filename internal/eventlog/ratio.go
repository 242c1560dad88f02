package eventlog

import (
	"errors"
	"fmt"
	"io"
)

// ErrRatio is the error for a log that decodes to more than its ratio
// limit (Reader.LimitRatio) times its stored size.
var ErrRatio = errors.New("decoded size over the decompression ratio limit")

// DefaultMaxRatio is far above what Spark's codecs make of event logs
// (10–50×) and below what a decompression bomb does.
const DefaultMaxRatio = 1000

// ratioFloor is the decoded size below which no ratio is refused: a tiny
// file of repeated events is not a threat.
const ratioFloor = 64 << 20

// LimitRatio returns in — r itself, or a reader of r such as a progress
// bar's — refusing, with ErrRatio, to go on once r has decoded past 64 MiB
// more than limit times the bytes it has read from storage; limit <= 0
// means DefaultMaxRatio. The errors do not name the log: the caller does.
func (r *Reader) LimitRatio(in io.Reader, limit float64) io.Reader {
	if limit <= 0 {
		limit = DefaultMaxRatio
	}
	return &ratioGuard{in: in, r: r, max: limit}
}

// ratioGuard stops a read whose decoded bytes outgrow the stored ones
// by more than max: a decompression bomb, not a Spark log (Spark's logs
// compress 10–50×).
type ratioGuard struct {
	in  io.Reader
	r   *Reader // whose counters are checked
	max float64
}

func (g *ratioGuard) Read(p []byte) (int, error) {
	n, err := g.in.Read(p)
	if d, s := g.r.DecodedBytes(), g.r.StoredBytes(); d > ratioFloor && float64(d) > g.max*float64(max(s, 1)) {
		return n, fmt.Errorf("%w: %d bytes decoded from %d stored (over %.0f×)", ErrRatio, d, s, g.max)
	}
	return n, err
}
