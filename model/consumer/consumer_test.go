package consumer

import (
	"container/heap"
	"slices"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/broker"
	"github.com/idemsim/idemsim/model/coordinator"
	"github.com/idemsim/idemsim/model/storage"
	"github.com/idemsim/idemsim/sim"
)

// A miniature world: brokers 0..n-1 leading partitions as leaders says
// (without replication), a group coordinator, and one consumer; every
// message takes 1 ms and is never lost.
type cWorld struct {
	t       *testing.T
	now     sim.Time
	q       evQueue
	seq     int
	brokers []*broker.Broker
	group   *coordinator.GroupCoordinator
	c       *Consumer
	polls   []model.Obs
	resets  []model.Obs
	// down brokers lose what is sent to them.
	down map[int32]bool
	// answer, if set, answers a request in the broker's place (nil: the
	// broker answers); sent counts the requests by type.
	answer func(m model.Message) model.Message
	sent   map[string]int
}

type ev struct {
	at  sim.Time
	seq int
	run func()
}

type evQueue []ev

func (q evQueue) Len() int { return len(q) }
func (q evQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q evQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *evQueue) Push(x any)   { *q = append(*q, x.(ev)) }
func (q *evQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

func ms(n int64) sim.Time { return sim.Time(n * int64(time.Millisecond)) }

func newCWorld(t *testing.T, leaders []int32, brokers int, cfg Config) *cWorld {
	w := &cWorld{t: t, group: coordinator.NewGroupCoordinator(), down: map[int32]bool{}, sent: map[string]int{}}
	for i := 0; i < brokers; i++ {
		w.brokers = append(w.brokers, broker.NewBroker(broker.BrokerConfig{ID: int32(i), Leaders: leaders}))
	}
	cfg.Brokers = brokers
	if cfg.Leaders == nil {
		cfg.Leaders = leaders
	}
	cfg.Commits = true
	if cfg.GroupID == "" {
		cfg.GroupID = "r1"
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 10 * time.Millisecond
	}
	if cfg.FetchMaxWait == 0 {
		cfg.FetchMaxWait = 50 * time.Millisecond
	}
	w.c = New(cfg)
	return w
}

func (w *cWorld) at(t sim.Time, f func()) {
	w.seq++
	heap.Push(&w.q, ev{at: t, seq: w.seq, run: f})
}

func (w *cWorld) runUntil(t sim.Time) {
	for len(w.q) > 0 && w.q[0].at <= t {
		e := heap.Pop(&w.q).(ev)
		w.now = e.at
		e.run()
	}
	w.now = t
}

func (w *cWorld) start() { w.consumerOuts(w.c.Start(w.now)) }

// consumerOuts carries out the consumer's effects.
func (w *cWorld) consumerOuts(outs []model.Out) {
	for _, o := range outs {
		switch o.Kind {
		case model.OutSend:
			m, dest := o.Msg, o.Dest
			w.sent[string(m.AppendDescription(nil)[:4])]++
			w.at(w.now.Add(time.Millisecond), func() {
				var outs []model.Out
				if w.answer != nil {
					if r := w.answer(m); r != nil {
						w.at(w.now.Add(time.Millisecond), func() { w.consumerOuts(w.c.Step(w.now, model.Peer{}, r)) })
						return
					}
				}
				switch {
				case dest == model.DestGroupCoordinator:
					outs = w.group.Step(w.now, model.Peer{Node: 99}, m)
				case w.down[dest]:
					return
				default:
					outs = w.brokers[dest].Step(w.now, model.Peer{Node: 99}, m)
				}
				for _, r := range outs {
					if r.Kind == model.OutReply {
						resp := r.Msg
						w.at(w.now.Add(time.Millisecond), func() { w.consumerOuts(w.c.Step(w.now, model.Peer{}, resp)) })
					}
				}
			})
		case model.OutWake:
			tok := o.Timer
			w.at(o.At, func() { w.consumerOuts(w.c.Wake(w.now, tok)) })
		case model.OutObserve:
			switch o.Obs.Kind {
			case model.ObsPoll:
				ob := *o.Obs
				ob.IDs, ob.Log = slices.Clone(ob.IDs), slices.Clone(ob.Log)
				w.polls = append(w.polls, ob)
			case model.ObsConsumerReset:
				w.resets = append(w.resets, *o.Obs)
			}
		case model.OutClose:
			dest := o.Dest
			w.at(w.now.Add(time.Millisecond), func() { w.consumerOuts(w.c.Step(w.now, model.Peer{}, &model.Disconnected{Dest: dest})) })
		}
	}
}

// part returns broker b's partition p.
func (w *cWorld) part(b, p int32) *storage.Partition { return w.brokers[b].Partition(p) }

// batch is n records of app 0 numbered from first; pid -1: no producer id.
func batch(pid model.ProducerID, txn bool, seq int32, first int64, n int) model.Batch {
	b := model.Batch{PID: pid, Epoch: 0, FirstSeq: seq, LastSeq: seq + int32(n) - 1, Transactional: txn, Records: make([]model.Record, n)}
	if pid < 0 {
		b.PID, b.Epoch, b.FirstSeq, b.LastSeq = model.NoProducerID, model.NoEpoch, model.NoSequence, model.NoSequence
	}
	for i := range b.Records {
		b.Records[i].ID = model.RecordID{N: first + int64(i)}
	}
	return b
}

func mustAppend(t *testing.T, r model.AppendResult) {
	t.Helper()
	if r.Err != model.ErrNone {
		t.Fatalf("append: %v %s", r.Err, r.Reason)
	}
}

// returned lists the record numbers the polls returned, in order.
func (w *cWorld) returned() []int64 {
	var out []int64
	for _, p := range w.polls {
		for _, id := range p.IDs {
			out = append(out, id.N)
		}
	}
	return out
}

// txnLog fills broker 0's partition 0: plain records 0..1 (offsets
// 0..1), pid 1's transaction 10..11 (2..3), pid 2's 20 (4), pid 1's
// ABORT (5), pid 2's 21 (6), pid 2's COMMIT (7), plain 2 (8), pid 3's
// open transaction 30 (9), plain 3 (10).
func txnLog(t *testing.T, p *storage.Partition) {
	mustAppend(t, p.Append(0, batch(-1, false, 0, 0, 2)))
	mustAppend(t, p.Append(0, batch(1, true, 0, 10, 2)))
	mustAppend(t, p.Append(0, batch(2, true, 0, 20, 1)))
	mustAppend(t, p.AppendMarker(0, 1, 0, 0, model.MarkerAbort))
	mustAppend(t, p.Append(0, batch(2, true, 1, 21, 1)))
	mustAppend(t, p.AppendMarker(0, 2, 0, 0, model.MarkerCommit))
	mustAppend(t, p.Append(0, batch(-1, false, 0, 2, 1)))
	mustAppend(t, p.Append(0, batch(3, true, 0, 30, 1)))
	mustAppend(t, p.Append(0, batch(-1, false, 0, 3, 1)))
}

// TestReadCommitted: a read_committed consumer returns the committed and
// non-transactional records below the LSO, skips the aborted transaction
// with the fetch response's aborted list (CompletedFetch), never returns
// a marker, and stops at the open transaction's first offset; a
// read_uncommitted one returns every data record up to the high
// watermark.
func TestReadCommitted(t *testing.T) {
	for _, tc := range []struct {
		rc   bool
		want []int64
		pos  int64
	}{
		{true, []int64{0, 1, 20, 21, 2}, 9},
		{false, []int64{0, 1, 10, 11, 20, 21, 2, 30, 3}, 11},
	} {
		w := newCWorld(t, []int32{0}, 1, Config{Partitions: []int32{0}, ReadCommitted: tc.rc, Reset: ResetEarliest})
		txnLog(t, w.part(0, 0))
		w.start()
		w.runUntil(ms(1000))
		if got := w.returned(); !slices.Equal(got, tc.want) {
			t.Errorf("read_committed=%v: returned %v, want %v", tc.rc, got, tc.want)
		}
		if got := w.c.Position(0); got != tc.pos {
			t.Errorf("read_committed=%v: position %d, want %d", tc.rc, got, tc.pos)
		}
		if len(w.resets) != 1 || w.resets[0].Text != "earliest" || w.resets[0].N != 0 {
			t.Errorf("resets %+v, want one to 0 by earliest", w.resets)
		}
		// The open transaction commits: the rest becomes readable.
		mustAppend(t, w.part(0, 0).AppendMarker(w.now, 3, 0, 0, model.MarkerCommit))
		w.runUntil(ms(2000))
		if got := w.returned(); tc.rc && !slices.Equal(got[len(tc.want):], []int64{30, 3}) {
			t.Errorf("after pid 3 commits: returned %v", got)
		}
		if got := w.c.Position(0); got != 12 {
			t.Errorf("read_committed=%v: position %d after the commit, want 12", tc.rc, got)
		}
	}
}

// TestMaxPollRecords: a poll returns at most max.poll.records records.
func TestMaxPollRecords(t *testing.T) {
	w := newCWorld(t, []int32{0}, 1, Config{Partitions: []int32{0}, MaxPollRecords: 3, Reset: ResetEarliest})
	mustAppend(t, w.part(0, 0).Append(0, batch(-1, false, 0, 0, 10)))
	w.start()
	w.runUntil(ms(1000))
	var sizes []int64
	for _, p := range w.polls {
		sizes = append(sizes, p.N)
		if p.Result.LastOffset-p.Result.FirstOffset != p.N {
			t.Errorf("poll %+v: the position moved by other than its records", p.Result)
		}
	}
	if !slices.Equal(sizes, []int64{3, 3, 3, 1}) {
		t.Errorf("poll sizes %v, want [3 3 3 1]", sizes)
	}
}

// TestResetPolicies: without a committed offset latest starts at the
// high watermark; a committed offset beyond the log end is
// OFFSET_OUT_OF_RANGE, which earliest resets to 0 and none turns into a
// failed partition, each reset logged.
func TestResetPolicies(t *testing.T) {
	w := newCWorld(t, []int32{0}, 1, Config{Partitions: []int32{0}})
	mustAppend(t, w.part(0, 0).Append(0, batch(-1, false, 0, 0, 4)))
	w.start()
	w.runUntil(ms(100))
	if w.c.Position(0) != 4 || len(w.polls) != 0 {
		t.Fatalf("latest: position %d, polls %d; want 4 and none", w.c.Position(0), len(w.polls))
	}
	for _, tc := range []struct {
		reset ResetPolicy
		pos   int64
		texts []string
	}{
		{ResetEarliest, 4, []string{"committed", "out of range", "earliest"}},
		{ResetNone, -1, []string{"committed", "out of range, auto.offset.reset=none"}},
	} {
		w := newCWorld(t, []int32{0}, 1, Config{Partitions: []int32{0}, Reset: tc.reset})
		mustAppend(t, w.part(0, 0).Append(0, batch(-1, false, 0, 0, 4)))
		w.group.Step(0, model.Peer{}, &model.OffsetCommitRequest{GroupID: "r1", Partitions: []int32{0}, Offsets: []int64{100}})
		w.start()
		w.runUntil(ms(1000))
		var texts []string
		for _, r := range w.resets {
			texts = append(texts, r.Text)
		}
		if !slices.Equal(texts, tc.texts) || w.c.Position(0) != tc.pos {
			t.Errorf("%v: resets %q, position %d; want %q and %d", tc.reset, texts, w.c.Position(0), tc.texts, tc.pos)
		}
	}
}

// TestNotLeaderReReadsMetadata: a consumer whose bootstrap metadata
// names the wrong leader gets NOT_LEADER_OR_FOLLOWER, asks for metadata
// and reads from the leader it names.
func TestNotLeaderReReadsMetadata(t *testing.T) {
	w := newCWorld(t, []int32{0}, 2, Config{Partitions: []int32{0}, Leaders: []int32{1}, Reset: ResetEarliest})
	mustAppend(t, w.part(0, 0).Append(0, batch(-1, false, 0, 0, 3)))
	w.start()
	w.runUntil(ms(1000))
	if got := w.returned(); !slices.Equal(got, []int64{0, 1, 2}) {
		t.Errorf("returned %v, want [0 1 2] from the leader", got)
	}
}

// TestCommits: auto-commit commits the position every
// auto.commit.interval.ms; without it the consumer commits after each
// poll that returned records and polls again only once it is answered.
func TestCommits(t *testing.T) {
	w := newCWorld(t, []int32{0}, 1, Config{Partitions: []int32{0}, Reset: ResetEarliest, AutoCommit: true, AutoCommitInterval: 500 * time.Millisecond})
	mustAppend(t, w.part(0, 0).Append(0, batch(-1, false, 0, 0, 5)))
	w.start()
	w.runUntil(ms(400))
	if got := w.group.ConsumerCommitted("r1", 0); got != -1 {
		t.Errorf("committed %d before the interval", got)
	}
	w.runUntil(ms(600))
	if got := w.group.ConsumerCommitted("r1", 0); got != 5 {
		t.Errorf("auto-commit: committed %d, want 5", got)
	}
	w = newCWorld(t, []int32{0}, 1, Config{Partitions: []int32{0}, Reset: ResetEarliest, MaxPollRecords: 2})
	mustAppend(t, w.part(0, 0).Append(0, batch(-1, false, 0, 0, 5)))
	w.start()
	w.runUntil(ms(1000))
	if got := w.group.ConsumerCommitted("r1", 0); got != 5 || len(w.polls) != 3 {
		t.Errorf("commitSync: committed %d after %d polls, want 5 after 3", got, len(w.polls))
	}
	// A restarted consumer resumes at the committed offset.
	mustAppend(t, w.part(0, 0).Append(0, batch(-1, false, 0, 5, 1)))
	w.c.Crash()
	w.consumerOuts(w.c.Restart(w.now, false))
	w.runUntil(ms(2000))
	if got := w.returned(); !slices.Equal(got, []int64{0, 1, 2, 3, 4, 5}) {
		t.Errorf("after the restart: returned %v", got)
	}
}

// TestLeaderErrorsReReadMetadata: FENCED_LEADER_EPOCH and
// NOT_LEADER_OR_FOLLOWER on a fetch ask for new metadata and retry after
// retry.backoff.ms (FetchCollector.handleInitializeErrors); the position
// does not move and nothing is returned twice.
func TestLeaderErrorsReReadMetadata(t *testing.T) {
	for _, e := range []model.ErrCode{model.ErrFencedLeaderEpoch, model.ErrNotLeaderOrFollower} {
		w := newCWorld(t, []int32{0}, 1, Config{Partitions: []int32{0}, Reset: ResetEarliest})
		mustAppend(t, w.part(0, 0).Append(0, batch(-1, false, 0, 0, 3)))
		refused := 0
		w.answer = func(m model.Message) model.Message {
			if f, ok := m.(*model.ConsumerFetchRequest); ok && refused < 2 {
				refused++
				return &model.ConsumerFetchResponse{CorrelationID: f.CorrelationID, Partition: f.Partition, FetchOffset: f.FetchOffset, Err: e, HighWatermark: -1, LastStableOffset: -1}
			}
			return nil
		}
		w.start()
		w.runUntil(ms(1000))
		if got := w.returned(); !slices.Equal(got, []int64{0, 1, 2}) || refused != 2 {
			t.Errorf("%v: returned %v after %d refusals, want [0 1 2] after 2", e, got, refused)
		}
		if w.sent["Meta"] != 3 {
			t.Errorf("%v: %d Metadata requests, want 3 (the bootstrap and one per refusal)", e, w.sent["Meta"])
		}
	}
}
