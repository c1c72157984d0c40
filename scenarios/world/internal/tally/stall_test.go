package tally

import (
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
)

// TestOffsetStall: a member's stall runs from its first
// UNSTABLE_OFFSET_COMMIT answer to its next answer without error; another
// member's answers neither end nor start it; a stall still open at the
// end is not counted.
func TestOffsetStall(t *testing.T) {
	fetch := func(ms int64, node int32, err model.ErrCode) *model.Obs {
		o := &model.Obs{Kind: model.ObsOffsets, Peer: node, Text: "offset-fetch", Err: err}
		o.At = o.At.Add(time.Duration(ms) * time.Millisecond)
		return o
	}
	u := model.ErrUnstableOffsetCommit
	var s OffsetStall
	for _, o := range []*model.Obs{fetch(100, 1, u), fetch(300, 1, u), fetch(400, 2, model.ErrNone), fetch(2600, 1, model.ErrNone),
		fetch(3000, 1, u), fetch(3500, 1, model.ErrNone), fetch(4000, 2, u)} {
		s.Observe(o)
	}
	if s.MaxMillis() != 2500 || s.Total != 3*time.Second || s.N != 2 {
		t.Fatalf("max %d ms, total %v, stalls %d; want 2500 ms, 3s, 2", s.MaxMillis(), s.Total, s.N)
	}
}
