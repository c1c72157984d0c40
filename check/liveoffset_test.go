package check

import (
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
)

// TestLiveOffset: a member answered UNSTABLE_OFFSET_COMMIT for longer
// than the bound, until its fetch succeeds or until the run's end, is
// reported once; a shorter stall, or another member's success, is not
// its end.
func TestLiveOffset(t *testing.T) {
	fetch := func(at int64, node int32, err model.ErrCode) model.Obs {
		return model.Obs{Kind: model.ObsOffsets, At: msAt(at), Node: 2, Peer: node, Text: "offset-fetch", N: -1, Err: err}
	}
	end := func(at int64) model.Obs { return model.Obs{Kind: model.ObsRunEnd, At: msAt(at)} }
	u := model.ErrUnstableOffsetCommit
	cfg := Config{UnstableBound: 2 * time.Second, Names: []string{"p1", "p2", "g1"}}
	long := []model.Obs{fetch(0, 1, u), fetch(1000, 0, model.ErrNone), fetch(1000, 1, u), fetch(3000, 1, model.ErrNone), end(4000)}
	if vs := judge(newLiveOffset(), cfg, long); len(vs) != 1 || !strings.Contains(vs[0].Detail, "p2's require_stable offset fetches were answered UNSTABLE_OFFSET_COMMIT for 3s (bound 2s, 2 answers) until its fetch succeeded") {
		t.Fatalf("stalled 3s with bound 2s: %v", vs)
	}
	open := []model.Obs{fetch(0, 1, u), fetch(500, 1, u), end(2500)}
	if vs := judge(newLiveOffset(), cfg, open); len(vs) != 1 || !strings.Contains(vs[0].Detail, "until the run's end") {
		t.Fatalf("stalled to the end, 2.5s with bound 2s: %v", vs)
	}
	short := []model.Obs{fetch(0, 1, u), fetch(1500, 1, model.ErrNone), fetch(2000, 1, u), fetch(3900, 1, model.ErrNone), end(5000)}
	if vs := judge(newLiveOffset(), cfg, short); len(vs) != 0 {
		t.Errorf("two stalls under the bound: %v", vs)
	}
}
