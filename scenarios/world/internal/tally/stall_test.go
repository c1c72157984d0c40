package tally

import (
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// TestOffsetStall: a member's stall runs from its first
// UNSTABLE_OFFSET_COMMIT answer to its next answer without error; another
// member's answers neither end nor start it; a stall still open at the
// end is not counted.
func TestOffsetStall(t *testing.T) {
	at := func(ms int64) sim.Time { return sim.Time(ms * int64(time.Millisecond)) }
	fetch := func(ms int64, node int32, err model.ErrCode) *model.Obs {
		return &model.Obs{Kind: model.ObsOffsets, At: at(ms), Peer: node, Text: "offset-fetch", Err: err}
	}
	u := model.ErrUnstableOffsetCommit
	var s OffsetStall
	for _, o := range []*model.Obs{fetch(100, 1, u), fetch(300, 1, u), fetch(400, 2, model.ErrNone), fetch(2600, 1, model.ErrNone),
		fetch(3000, 1, u), fetch(3500, 1, model.ErrNone), fetch(4000, 2, u)} {
		s.Observe(o)
	}
	if s.MaxMillis() != 2500 || s.Total != at(3000) || s.N != 2 {
		t.Fatalf("max %d ms, total %v, stalls %d; want 2500 ms, 3s, 2", s.MaxMillis(), s.Total, s.N)
	}
}
