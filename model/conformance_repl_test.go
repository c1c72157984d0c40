package model_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/coordinator"
	"github.com/idemsim/idemsim/model/storage"
)

// TestConformanceReplication replays the replication vectors in
// testdata/conformance/replication (format: that directory's README):
// the shared format's partition ops on several brokers, plus replication
// ops (become_leader, replicate, fetch, truncate, end_offset_for_epoch,
// check_log, same_state).
func TestConformanceReplication(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "conformance", "replication", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no replication vectors")
	}
	sort.Strings(files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := runReplVector(data); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		})
	}
}

// replRunner holds one vecRunner per broker (its partitions are that
// broker's replicas), the replica logs around them and each broker's
// leader epoch.
type replRunner struct {
	brokers []*vecRunner
	logs    map[[2]int32]*storage.ReplicaLog
	epoch   []int32
}

func (r *replRunner) log(b, part int32) (*storage.ReplicaLog, error) {
	if b < 0 || int(b) >= len(r.brokers) {
		return nil, fmt.Errorf("no broker %d", b)
	}
	k := [2]int32{b, part}
	l := r.logs[k]
	if l == nil {
		l = storage.NewReplicaLog(r.brokers[b].part(part))
		r.logs[k] = l
	}
	return l, nil
}

func runReplVector(data []byte) error {
	top, err := parseObj(data, "name", "description", "source", "window", "config", "brokers", "steps")
	if err != nil {
		return fmt.Errorf("file: %v", err)
	}
	var window, brokers int
	if err := firstErr(top.get("window", &window, false), top.get("brokers", &brokers, true)); err != nil {
		return err
	}
	if brokers < 1 || brokers > 16 {
		return fmt.Errorf("brokers %d out of range", brokers)
	}
	var cfgRaw json.RawMessage = []byte("{}")
	if top.has("config") {
		cfgRaw = top["config"]
	}
	cfg, err := parseObj(cfgRaw, "snapshotEvery", "producerIdExpirationMs")
	if err != nil {
		return fmt.Errorf("config: %v", err)
	}
	var (
		snapEvery int
		expMs     int64
	)
	if err := firstErr(cfg.get("snapshotEvery", &snapEvery, false), cfg.get("producerIdExpirationMs", &expMs, false)); err != nil {
		return fmt.Errorf("config: %v", err)
	}
	pcfg := storage.PartitionConfig{Window: window, NoPartitionVerification: true, SnapshotEvery: snapEvery,
		ProducerIDExpiration: time.Duration(expMs) * time.Millisecond}
	r := &replRunner{logs: map[[2]int32]*storage.ReplicaLog{}, epoch: make([]int32, brokers)}
	for i := 0; i < brokers; i++ {
		r.brokers = append(r.brokers, &vecRunner{pcfg: pcfg, parts: map[int32]*storage.Partition{}, coord: coordinator.NewCoordinator(coordinator.CoordinatorConfig{})})
	}
	var steps []json.RawMessage
	if err := top.get("steps", &steps, true); err != nil {
		return err
	}
	if len(steps) == 0 {
		return fmt.Errorf("no steps")
	}
	for i, s := range steps {
		var head struct {
			Op string `json:"op"`
		}
		if err := json.Unmarshal(s, &head); err != nil {
			return fmt.Errorf("step %d: %v", i, err)
		}
		if err := r.step(head.Op, s); err != nil {
			return fmt.Errorf("step %d (%s): %v\n\tstep: %s", i, head.Op, err, s)
		}
	}
	return nil
}

func (r *replRunner) step(op string, raw json.RawMessage) error {
	keys := func(k ...string) []string { return append([]string{"op", "comment"}, k...) }
	switch op {
	case "append", "marker", "check_state", "expire_producer", "snapshot":
		// The shared op on one broker's replica: strip "broker", delegate,
		// and stamp what it appended with that broker's leader epoch.
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		var b, part int32
		if v, ok := m["broker"]; ok {
			if err := json.Unmarshal(v, &b); err != nil {
				return err
			}
			delete(m, "broker")
		}
		if v, ok := m["partition"]; ok {
			if err := json.Unmarshal(v, &part); err != nil {
				return err
			}
		}
		l, err := r.log(b, part)
		if err != nil {
			return err
		}
		stripped, err := json.Marshal(m)
		if err != nil {
			return err
		}
		leo := l.LogEndOffset()
		if err := r.brokers[b].step(op, stripped); err != nil {
			return err
		}
		if l.LogEndOffset() > leo {
			l.Epochs.Assign(r.epoch[b], leo)
		}
		return nil
	case "advance":
		o, err := parseObj(raw, keys("ms")...)
		if err != nil {
			return err
		}
		var msec int64
		if err := o.get("ms", &msec, true); err != nil {
			return err
		}
		for _, vr := range r.brokers {
			vr.now = vr.now.Add(time.Duration(msec) * time.Millisecond)
		}
		return nil
	case "become_leader":
		o, err := parseObj(raw, keys("broker", "partition", "epoch")...)
		if err != nil {
			return err
		}
		var b, part, epoch int32
		if err := firstErr(o.get("broker", &b, true), o.get("partition", &part, false), o.get("epoch", &epoch, true)); err != nil {
			return err
		}
		l, err := r.log(b, part)
		if err != nil {
			return err
		}
		if epoch < 0 {
			return fmt.Errorf("negative epoch")
		}
		l.BeginEpoch(epoch)
		r.epoch[b] = epoch
		return nil
	case "replicate":
		o, err := parseObj(raw, keys("from", "to", "partition", "upTo", "expect")...)
		if err != nil {
			return err
		}
		var from, to, part int32
		upTo := int64(-1)
		if err := firstErr(o.get("from", &from, true), o.get("to", &to, true), o.get("partition", &part, false), o.get("upTo", &upTo, false)); err != nil {
			return err
		}
		src, err := r.log(from, part)
		if err != nil {
			return err
		}
		dst, err := r.log(to, part)
		if err != nil {
			return err
		}
		batches := src.Read(dst.LogEndOffset(), 0, nil)
		if upTo >= 0 {
			n := 0
			for n < len(batches) && batches[n].Entry.LastOffset < upTo {
				n++
			}
			batches = batches[:n]
		}
		if err := dst.AppendAsFollower(batches); err != nil {
			return err
		}
		return expectLog(o, dst)
	case "fetch":
		// One fetch round with truncation on fetch (KAFKA-10554):
		// the follower asks from its log end with its latest epoch; on a
		// diverging epoch it truncates, else it appends all the leader has.
		o, err := parseObj(raw, keys("follower", "leader", "partition", "expect")...)
		if err != nil {
			return err
		}
		var fb, lb, part int32
		if err := firstErr(o.get("follower", &fb, true), o.get("leader", &lb, true), o.get("partition", &part, false)); err != nil {
			return err
		}
		fl, err := r.log(fb, part)
		if err != nil {
			return err
		}
		ll, err := r.log(lb, part)
		if err != nil {
			return err
		}
		var got fetchOutcome
		got.diverging = [2]int64{-1, -1}
		fo, last := fl.LogEndOffset(), fl.LatestEpoch()
		if last != model.UndefinedEpoch {
			e, end := ll.EndOffsetForEpoch(last)
			if end == model.UndefinedEpochOffset || e == model.UndefinedEpoch {
				return fmt.Errorf("leader answers OFFSET_OUT_OF_RANGE")
			}
			if e < last || end < fo {
				got.diverging = [2]int64{int64(e), end}
				off, _ := fl.TruncationOffset(e, end)
				got.truncatedTo = fl.TruncateTo(r.brokers[fb].now, off)
				got.truncated = true
				return got.check(o, fl)
			}
		}
		if fo > ll.LogEndOffset() {
			return fmt.Errorf("leader answers OFFSET_OUT_OF_RANGE")
		}
		if err := fl.AppendAsFollower(ll.Read(fo, 0, nil)); err != nil {
			return err
		}
		return got.check(o, fl)
	case "truncate":
		o, err := parseObj(raw, keys("broker", "partition", "offset", "expect")...)
		if err != nil {
			return err
		}
		var b, part int32
		var off int64
		if err := firstErr(o.get("broker", &b, true), o.get("partition", &part, false), o.get("offset", &off, true)); err != nil {
			return err
		}
		l, err := r.log(b, part)
		if err != nil {
			return err
		}
		if off < 0 {
			return fmt.Errorf("negative offset")
		}
		l.TruncateTo(r.brokers[b].now, off)
		return expectLog(o, l)
	case "end_offset_for_epoch":
		o, err := parseObj(raw, keys("broker", "partition", "epoch", "expect")...)
		if err != nil {
			return err
		}
		var b, part, epoch int32
		if err := firstErr(o.get("broker", &b, true), o.get("partition", &part, false), o.get("epoch", &epoch, true)); err != nil {
			return err
		}
		l, err := r.log(b, part)
		if err != nil {
			return err
		}
		ex, err := parseObj(o["expect"], "epoch", "offset")
		if err != nil {
			return fmt.Errorf("expect: %v", err)
		}
		var we int32
		var wo int64
		if err := firstErr(ex.get("epoch", &we, true), ex.get("offset", &wo, true)); err != nil {
			return err
		}
		if e, off := l.EndOffsetForEpoch(epoch); e != we || off != wo {
			return fmt.Errorf("endOffsetFor(%d) = (%d, %d), want (%d, %d)", epoch, e, off, we, wo)
		}
		return nil
	case "check_log":
		o, err := parseObj(raw, keys("broker", "partition", "expect")...)
		if err != nil {
			return err
		}
		var b, part int32
		if err := firstErr(o.get("broker", &b, true), o.get("partition", &part, false)); err != nil {
			return err
		}
		l, err := r.log(b, part)
		if err != nil {
			return err
		}
		if !o.has("expect") {
			return fmt.Errorf("missing expect")
		}
		return expectLog(o, l)
	case "same_state":
		o, err := parseObj(raw, keys("brokers", "partition")...)
		if err != nil {
			return err
		}
		var bs []int32
		var part int32
		if err := firstErr(o.get("brokers", &bs, true), o.get("partition", &part, false)); err != nil {
			return err
		}
		if len(bs) < 2 {
			return fmt.Errorf("same_state needs two brokers or more")
		}
		first, err := r.log(bs[0], part)
		if err != nil {
			return err
		}
		for _, b := range bs[1:] {
			l, err := r.log(b, part)
			if err != nil {
				return err
			}
			if a, c := stateOf(first.Part), stateOf(l.Part); !reflect.DeepEqual(a, c) {
				return fmt.Errorf("producer state of broker %d\n%v\ndiffers from broker %d\n%v", bs[0], a, b, c)
			}
			if first.LogEndOffset() != l.LogEndOffset() {
				return fmt.Errorf("log end %d on broker %d, %d on broker %d", first.LogEndOffset(), bs[0], l.LogEndOffset(), b)
			}
		}
		return nil
	}
	return fmt.Errorf("unknown op %q", op)
}

type fetchOutcome struct {
	diverging   [2]int64
	truncated   bool
	truncatedTo int64
}

func (g fetchOutcome) check(o jobj, l *storage.ReplicaLog) error {
	if !o.has("expect") {
		return fmt.Errorf("missing expect")
	}
	ex, err := parseObj(o["expect"], "diverging", "truncatedTo", "leo", "epochs")
	if err != nil {
		return fmt.Errorf("expect: %v", err)
	}
	if ex.has("diverging") {
		var want *[2]int64
		if err := ex.get("diverging", &want, true); err != nil {
			return err
		}
		if want == nil && g.diverging[1] >= 0 || want != nil && *want != g.diverging {
			return fmt.Errorf("diverging = %v, want %v", g.diverging, o["expect"])
		}
	}
	if ex.has("truncatedTo") {
		var want int64
		if err := ex.get("truncatedTo", &want, true); err != nil {
			return err
		}
		if !g.truncated || g.truncatedTo != want {
			return fmt.Errorf("truncated %v to %d, want %d", g.truncated, g.truncatedTo, want)
		}
	}
	return expectLogFields(ex, l)
}

// expectLog checks an optional expect {leo, epochs, hw} against l.
func expectLog(o jobj, l *storage.ReplicaLog) error {
	if !o.has("expect") {
		return nil
	}
	ex, err := parseObj(o["expect"], "leo", "epochs")
	if err != nil {
		return fmt.Errorf("expect: %v", err)
	}
	return expectLogFields(ex, l)
}

func expectLogFields(ex jobj, l *storage.ReplicaLog) error {
	if ex.has("leo") {
		var want int64
		if err := ex.get("leo", &want, true); err != nil {
			return err
		}
		if l.LogEndOffset() != want {
			return fmt.Errorf("leo = %d, want %d", l.LogEndOffset(), want)
		}
	}
	if ex.has("epochs") {
		var want [][2]int64
		if err := ex.get("epochs", &want, true); err != nil {
			return err
		}
		got := make([][2]int64, 0, len(l.Epochs.Entries()))
		for _, e := range l.Epochs.Entries() {
			got = append(got, [2]int64{int64(e.Epoch), e.StartOffset})
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("epochs = %v, want %v", got, want)
		}
	}
	return nil
}
