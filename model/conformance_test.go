package model_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/coordinator"
	"github.com/idemsim/idemsim/model/storage"
	"github.com/idemsim/idemsim/sim"
)

// TestConformance replays every *.json vector in $IDEMSIM_CONFORMANCE_DIR,
// or else in testdata/conformance (our own vectors), against fresh
// partitions and a fresh coordinator, and compares every expect. The
// format, with its extensions, is documented in
// testdata/conformance/README.md. Unknown ops and keys fail.
func TestConformance(t *testing.T) {
	dir := os.Getenv("IDEMSIM_CONFORMANCE_DIR")
	if dir == "" {
		dir = filepath.Join("testdata", "conformance")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no *.json vectors in %s", dir)
	}
	sort.Strings(files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			err = runVector(data)
			if why, ok := knownDiff[filepath.Base(f)]; ok && dir == filepath.Join("testdata", "conformance") {
				if err == nil {
					t.Errorf("%s is listed in knownDiff but passes now: remove it from the list", f)
					return
				}
				t.Skipf("knownDiff: %s\n\tgot: %v", why, err)
			}
			if err != nil {
				t.Errorf("%s: %v", f, err)
			}
		})
	}
}

// jobj is one JSON object whose keys are checked against an allowed set.
type jobj map[string]json.RawMessage

func parseObj(raw json.RawMessage, allowed ...string) (jobj, error) {
	var o jobj
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&o); err != nil {
		return nil, err
	}
	if o == nil {
		return nil, fmt.Errorf("expected an object, got %s", raw)
	}
	for k := range o {
		if !slices.Contains(allowed, k) {
			keys := make([]string, 0, len(o))
			for k := range o {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return nil, fmt.Errorf("unknown key %q (keys %v; allowed %v)", k, keys, allowed)
		}
	}
	return o, nil
}

func (o jobj) has(k string) bool { _, ok := o[k]; return ok }

func (o jobj) get(k string, v any, required bool) error {
	raw, ok := o[k]
	if !ok {
		if required {
			return fmt.Errorf("missing required key %q", k)
		}
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("key %q: %v", k, err)
	}
	return nil
}

// vecRunner holds the model under test for one vector file.
type vecRunner struct {
	pcfg  storage.PartitionConfig
	parts map[int32]*storage.Partition
	coord *coordinator.Coordinator
	now   sim.Time

	// node: config.coordinatorNode, coordinator steps go through the
	// coordinator's node API (Step, Wake, Crash, Restart) and markers
	// stay pending until coord_markers_answered.
	node bool
	// down: the coordinator has crashed and not restarted.
	down bool
	// wakes are the coordinator's pending wake-ups, in the order asked.
	wakes []model.Out
	// outstanding are the WriteTxnMarkers requests the coordinator sent
	// and nobody answered yet, oldest first.
	outstanding []*sentMarkers
	// sent collects the markers the coordinator sent during the current
	// step.
	sent []model.TxnMarker
	// seeded is the state coord_seed installed per id: the state before
	// the id's first log record.
	seeded map[string]model.TxnState
}

// sentMarkers is one WriteTxnMarkers request in flight.
type sentMarkers struct {
	req *model.WriteTxnMarkersRequest
	// stale: sent by an incarnation of the coordinator that has crashed
	// since; its answer has no connection to go back on.
	stale bool
}

func (r *vecRunner) part(id int32) *storage.Partition {
	p := r.parts[id]
	if p == nil {
		p = storage.NewPartition(id, r.pcfg)
		r.parts[id] = p
	}
	return p
}

// snapshotRelease is config.release's default: the vector's expectations
// were read from apache/kafka at 1eb7644349cb (4.0.0-SNAPSHOT,
// 2024-10-25), as the shared vectors' README says of all of them, so the
// coordinator answers as that snapshot did where it differs from the
// releases (coordinator.CoordinatorConfig.PreReleaseEndTxnV2). "4.0" and
// "4.1" select those releases' behaviour.
const snapshotRelease = "1eb7644349cb"

// releases maps config.release to the coordinator's Version (0, the
// newest modelled, for the snapshot: its rules differ from the newest
// only where PreReleaseEndTxnV2 says).
var releases = map[string]int{snapshotRelease: 0, "4.0": 400, "4.1": 401}

func runVector(data []byte) error {
	top, err := parseObj(data, "name", "description", "source", "uncertain", "window", "config", "steps")
	if err != nil {
		return fmt.Errorf("file: %v", err)
	}
	var window int
	if err := top.get("window", &window, false); err != nil {
		return err
	}
	var cfgRaw json.RawMessage = []byte("{}")
	if top.has("config") {
		cfgRaw = top["config"]
	}
	cfg, err := parseObj(cfgRaw, "nextPid", "transactionVersion", "verification", "snapshotEvery", "producerIdExpirationMs", "epochBits",
		"coordinatorNode", "timeoutCheckIntervalMs", "transactionalIdExpirationMs", "expirationCheckIntervalMs", "coordinatorEpoch", "release")
	if err != nil {
		return fmt.Errorf("config: %v", err)
	}
	var (
		nextPid                           int64 = 1000
		tv, snapEvery, eb                 int
		verification, node                bool
		expMs, checkMs, idExpMs, idExpChk int64
		coordEpoch                        int32
		release                           = snapshotRelease
	)
	for _, e := range []error{cfg.get("nextPid", &nextPid, false), cfg.get("transactionVersion", &tv, false),
		cfg.get("verification", &verification, false), cfg.get("snapshotEvery", &snapEvery, false),
		cfg.get("producerIdExpirationMs", &expMs, false), cfg.get("epochBits", &eb, false),
		cfg.get("coordinatorNode", &node, false), cfg.get("timeoutCheckIntervalMs", &checkMs, false),
		cfg.get("transactionalIdExpirationMs", &idExpMs, false), cfg.get("expirationCheckIntervalMs", &idExpChk, false),
		cfg.get("coordinatorEpoch", &coordEpoch, false), cfg.get("release", &release, false)} {
		if e != nil {
			return fmt.Errorf("config: %v", e)
		}
	}
	version, ok := releases[release]
	if !ok {
		return fmt.Errorf("config: release %q (allowed: %q, the default, \"4.0\" or \"4.1\")", release, snapshotRelease)
	}
	r := &vecRunner{
		pcfg: storage.PartitionConfig{Window: window, NoPartitionVerification: !verification, SnapshotEvery: snapEvery,
			ProducerIDExpiration: time.Duration(expMs) * time.Millisecond},
		parts: make(map[int32]*storage.Partition),
		coord: coordinator.NewCoordinator(coordinator.CoordinatorConfig{NextPID: model.ProducerID(nextPid), TransactionVersion: tv, EpochBits: uint8(eb),
			TimeoutCheckInterval: msDur(checkMs), TransactionalIDExpiration: msDur(idExpMs), ExpirationCheckInterval: msDur(idExpChk),
			CoordinatorEpoch: coordEpoch, PreReleaseEndTxnV2: release == snapshotRelease, Version: version}),
		node:   node,
		seeded: make(map[string]model.TxnState),
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
		if err := r.safeStep(head.Op, s); err != nil {
			return fmt.Errorf("step %d (%s): %v\n\tstep: %s", i, head.Op, err, s)
		}
	}
	// Runner-level check, whatever the vector says: every transition on
	// __transaction_state is legal (TransactionMetadata.prepareTransitionTo).
	if err := checkTxnLog(r.coord.TxnLog(), r.seeded); err != nil {
		return fmt.Errorf("__transaction_state: %v", err)
	}
	return nil
}

func msDur(v int64) time.Duration { return time.Duration(v) * time.Millisecond }

// safeStep runs one step and turns a panic of the model (e.g. the
// coordinator's own illegal-transition check) into an error.
func (r *vecRunner) safeStep(op string, raw json.RawMessage) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return r.step(op, raw)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func (r *vecRunner) step(op string, raw json.RawMessage) error {
	common := []string{"op", "comment"}
	keys := func(k ...string) []string { return append(slices.Clone(common), k...) }
	switch op {
	case "append":
		o, err := parseObj(raw, keys("pid", "epoch", "firstSeq", "lastSeq", "transactional", "partition", "verified", "expect")...)
		if err != nil {
			return err
		}
		var (
			pid               int64
			epoch             int16
			first, last, part int32
			txn               bool
			verified          = true
		)
		if err := firstErr(o.get("pid", &pid, true), o.get("epoch", &epoch, true), o.get("firstSeq", &first, true),
			o.get("lastSeq", &last, true), o.get("transactional", &txn, false), o.get("partition", &part, false),
			o.get("verified", &verified, false)); err != nil {
			return err
		}
		p := r.part(part)
		n := int64(1)
		if first >= 0 && last >= 0 {
			n = p.Config().Seq.Count(first, last)
		}
		if n > 1<<20 {
			return fmt.Errorf("batch of %d records is too large for the runner", n)
		}
		b := model.Batch{Partition: part, PID: model.ProducerID(pid), Epoch: epoch, FirstSeq: first, LastSeq: last, Transactional: txn, Records: make([]model.Record, n)}
		for i := range b.Records {
			// The vectors have one clock: the client stamps its
			// records with the time it appends them.
			b.Records[i].CreateTime = r.now
		}
		opts := storage.AppendOptions{}
		if !verified {
			opts.Verification = model.ErrInvalidTxnState
		}
		leo := p.LogEndOffset()
		res := p.AppendWith(r.now, b, opts)
		// Model invariants, whatever the vector says.
		if res.Err == model.ErrDuplicateSequenceNumber || res.Err == model.ErrUnknownProducerID {
			return fmt.Errorf("partition returned legacy error %v", res.Err)
		}
		if (res.Err != model.ErrNone || res.Duplicate) && p.LogEndOffset() != leo {
			return fmt.Errorf("rejected or duplicate batch moved the log end offset %d -> %d", leo, p.LogEndOffset())
		}
		if res.Err == model.ErrNone && !res.Duplicate && (res.FirstOffset != leo || p.LogEndOffset() != leo+n) {
			return fmt.Errorf("accepted batch got offsets %d..%d with log end %d -> %d", res.FirstOffset, res.LastOffset, leo, p.LogEndOffset())
		}
		return r.expectAppend(o, res)
	case "marker":
		o, err := parseObj(raw, keys("pid", "epoch", "commit", "coordinatorEpoch", "partition", "expect")...)
		if err != nil {
			return err
		}
		var (
			pid    int64
			epoch  int16
			commit bool
			ce     int32
			part   int32
		)
		if err := firstErr(o.get("pid", &pid, true), o.get("epoch", &epoch, true), o.get("commit", &commit, true),
			o.get("coordinatorEpoch", &ce, false), o.get("partition", &part, false)); err != nil {
			return err
		}
		m := model.MarkerAbort
		if commit {
			m = model.MarkerCommit
		}
		return r.expectAppend(o, r.part(part).AppendMarker(r.now, model.ProducerID(pid), epoch, ce, m))
	case "expire_producer":
		o, err := parseObj(raw, keys("pid", "partition", "expect")...)
		if err != nil {
			return err
		}
		var (
			pid  int64
			part int32
		)
		if err := firstErr(o.get("pid", &pid, true), o.get("partition", &part, false)); err != nil {
			return err
		}
		got := r.part(part).ExpireProducer(model.ProducerID(pid))
		if !o.has("expect") {
			return nil
		}
		ex, err := parseObj(o["expect"], "expired")
		if err != nil {
			return fmt.Errorf("expect: %v", err)
		}
		var want bool
		if err := ex.get("expired", &want, true); err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("expired = %v, want %v", got, want)
		}
		return nil
	case "expire_producers": // extension: periodic expiry at the current time
		o, err := parseObj(raw, keys("partition", "expect")...)
		if err != nil {
			return err
		}
		var part int32
		if err := o.get("partition", &part, false); err != nil {
			return err
		}
		got := r.part(part).ExpireProducers(r.now)
		ex, err := parseObj(o["expect"], "expired")
		if err != nil {
			return fmt.Errorf("expect: %v", err)
		}
		var want []model.ProducerID
		if err := ex.get("expired", &want, true); err != nil {
			return err
		}
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			return fmt.Errorf("expired = %v, want %v", got, want)
		}
		return nil
	case "advance": // extension: advance the clock
		o, err := parseObj(raw, keys("ms")...)
		if err != nil {
			return err
		}
		var ms int64
		if err := o.get("ms", &ms, true); err != nil {
			return err
		}
		if r.node && !r.down {
			return r.advanceNode(r.now.Add(time.Duration(ms) * time.Millisecond))
		}
		r.now = r.now.Add(time.Duration(ms) * time.Millisecond)
		return nil
	case "snapshot": // extension: take a producer-state snapshot
		o, err := parseObj(raw, keys("partition")...)
		if err != nil {
			return err
		}
		var part int32
		if err := o.get("partition", &part, false); err != nil {
			return err
		}
		r.part(part).Snapshot()
		return nil
	case "restart_broker":
		o, err := parseObj(raw, keys("clean")...) // "clean" is an extension, default true
		if err != nil {
			return err
		}
		clean := true
		if err := o.get("clean", &clean, false); err != nil {
			return err
		}
		ids := make([]int32, 0, len(r.parts))
		for id := range r.parts {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			r.parts[id].Restart(r.now, clean)
		}
		return nil
	case "check_state":
		o, err := parseObj(raw, keys("pid", "partition", "expect")...)
		if err != nil {
			return err
		}
		var (
			pid  int64
			part int32
		)
		if err := firstErr(o.get("pid", &pid, true), o.get("partition", &part, false)); err != nil {
			return err
		}
		return r.checkState(r.part(part).Producer(model.ProducerID(pid)), o["expect"])
	case "init_producer_id":
		o, err := parseObj(raw, keys("transactionalId", "producerId", "producerEpoch", "transactionTimeoutMs", "expect")...)
		if err != nil {
			return err
		}
		if !o.has("transactionalId") {
			return fmt.Errorf("missing required key %q", "transactionalId")
		}
		var (
			id      *string
			pid     int64 = -1
			epoch   int16 = -1
			timeout int64
		)
		if err := firstErr(o.get("transactionalId", &id, false), o.get("producerId", &pid, false), o.get("producerEpoch", &epoch, false),
			o.get("transactionTimeoutMs", &timeout, false)); err != nil {
			return err
		}
		if r.node {
			if id != nil && *id == "" {
				return fmt.Errorf("coordinatorNode: the node API cannot carry an empty transactional.id (it means none)")
			}
			req := &model.InitProducerIDRequest{ExpectedPID: model.ProducerID(pid), ExpectedEpoch: epoch, TransactionTimeout: msDur(timeout)}
			if id != nil {
				req.TransactionalID = *id
			}
			reply, err := r.coordStep(req)
			if err != nil {
				return err
			}
			res, ok := reply.(*model.InitProducerIDResponse)
			if !ok {
				return fmt.Errorf("reply %T", reply)
			}
			return expectCoord(o["expect"], res.Err, res.PID, res.Epoch, r.sent, false)
		}
		res := r.coord.InitProducerID(r.now, coordinator.InitProducerIDCall{TransactionalID: id, ProducerID: model.ProducerID(pid), ProducerEpoch: epoch,
			TransactionTimeout: msDur(timeout)})
		if id != nil {
			r.coord.MarkersWritten(r.now, *id)
		}
		return expectCoord(o["expect"], res.Err, res.ProducerID, res.Epoch, res.Markers, false)
	case "add_partitions":
		o, err := parseObj(raw, keys("transactionalId", "pid", "epoch", "partitions", "expect")...)
		if err != nil {
			return err
		}
		var (
			id    string
			pid   int64
			epoch int16
			parts []int32
		)
		if err := firstErr(o.get("transactionalId", &id, true), o.get("pid", &pid, true), o.get("epoch", &epoch, true), o.get("partitions", &parts, true)); err != nil {
			return err
		}
		if r.node {
			reply, err := r.coordStep(&model.AddPartitionsToTxnRequest{TransactionalID: id, PID: model.ProducerID(pid), Epoch: epoch, Partitions: parts})
			if err != nil {
				return err
			}
			res, ok := reply.(*model.TxnResponse)
			if !ok {
				return fmt.Errorf("reply %T", reply)
			}
			return expectCoord(o["expect"], res.Err, model.NoProducerID, model.NoEpoch, nil, true)
		}
		e := r.coord.AddPartitionsToTxn(r.now, id, model.ProducerID(pid), epoch, parts)
		return expectCoord(o["expect"], e, model.NoProducerID, model.NoEpoch, nil, true)
	case "add_partitions_implicitly", "verify_partitions": // extensions
		o, err := parseObj(raw, keys("transactionalId", "pid", "epoch", "partitions", "expect")...)
		if err != nil {
			return err
		}
		var (
			id    string
			pid   int64
			epoch int16
			parts []int32
		)
		if err := firstErr(o.get("transactionalId", &id, true), o.get("pid", &pid, true), o.get("epoch", &epoch, true), o.get("partitions", &parts, true)); err != nil {
			return err
		}
		add := op == "add_partitions_implicitly"
		var got []model.ErrCode
		if r.node {
			reply, err := r.coordStep(&model.VerifyPartitionsRequest{TransactionalID: id, PID: model.ProducerID(pid), Epoch: epoch, Partitions: parts, Add: add})
			if err != nil {
				return err
			}
			res, ok := reply.(*model.VerifyPartitionsResponse)
			if !ok {
				return fmt.Errorf("reply %T", reply)
			}
			got = res.Errs
		} else {
			for _, p := range parts {
				if add {
					got = append(got, r.coord.AddPartitionImplicitly(r.now, id, model.ProducerID(pid), epoch, p))
				} else {
					got = append(got, r.coord.VerifyPartition(id, model.ProducerID(pid), epoch, p))
				}
			}
		}
		ex, err := parseObj(o["expect"], "errors")
		if err != nil {
			return fmt.Errorf("expect: %v", err)
		}
		var want []string
		if err := ex.get("errors", &want, true); err != nil {
			return err
		}
		return expectErrNames(got, want)
	case "end_txn":
		o, err := parseObj(raw, keys("transactionalId", "pid", "epoch", "commit", "version", "expect")...)
		if err != nil {
			return err
		}
		var (
			id      string
			pid     int64
			epoch   int16
			commit  bool
			version int16
		)
		if err := firstErr(o.get("transactionalId", &id, true), o.get("pid", &pid, true), o.get("epoch", &epoch, true), o.get("commit", &commit, true),
			o.get("version", &version, false)); err != nil {
			return err
		}
		if r.node {
			reply, err := r.coordStep(&model.EndTxnRequest{TransactionalID: id, PID: model.ProducerID(pid), Epoch: epoch, Commit: commit, Version: version})
			if err != nil {
				return err
			}
			res, ok := reply.(*model.TxnResponse)
			if !ok {
				return fmt.Errorf("reply %T", reply)
			}
			return expectCoord(o["expect"], res.Err, res.PID, res.Epoch, r.sent, true)
		}
		res := r.coord.EndTxn(r.now, coordinator.EndTxnCall{TransactionalID: id, ProducerID: model.ProducerID(pid), ProducerEpoch: epoch, Commit: commit, Version: version})
		r.coord.MarkersWritten(r.now, id)
		return expectCoord(o["expect"], res.Err, res.ProducerID, res.Epoch, res.Markers, true)
	case "coord_seed":
		o, err := parseObj(raw, keys("transactionalId", "pid", "epoch", "lastEpoch", "state", "prevPid", "partitions")...)
		if err != nil {
			return err
		}
		var (
			id    string
			pid   int64
			epoch int16
			last  int16 = -1
			state string
			prev  int64
			parts []int32
		)
		if err := firstErr(o.get("transactionalId", &id, true), o.get("pid", &pid, true), o.get("epoch", &epoch, true),
			o.get("lastEpoch", &last, false), o.get("state", &state, true), o.get("partitions", &parts, false)); err != nil {
			return err
		}
		prev = pid
		if err := o.get("prevPid", &prev, false); err != nil {
			return err
		}
		st, ok := model.ParseTxnState(state)
		if !ok {
			return fmt.Errorf("unknown state %q", state)
		}
		r.coord.SetTxn(coordinator.TxnMetadata{TransactionalID: id, ProducerID: model.ProducerID(pid), PrevProducerID: model.ProducerID(prev),
			ProducerEpoch: epoch, LastProducerEpoch: last, State: st, Partitions: parts,
			TxnTimeout: coordinator.DefaultTransactionTimeout, TxnStartTime: r.now, LastUpdate: r.now})
		r.seeded[id] = st
		return nil
	case "coord_state": // extension
		o, err := parseObj(raw, keys("transactionalId", "expect")...)
		if err != nil {
			return err
		}
		var id string
		if err := o.get("transactionalId", &id, true); err != nil {
			return err
		}
		return r.expectTxn(id, o["expect"])
	case "coord_log": // extension
		o, err := parseObj(raw, keys("transactionalId", "expect")...)
		if err != nil {
			return err
		}
		var id string
		if err := o.get("transactionalId", &id, true); err != nil {
			return err
		}
		ex, err := parseObj(o["expect"], "records")
		if err != nil {
			return fmt.Errorf("expect: %v", err)
		}
		var want []json.RawMessage
		if err := ex.get("records", &want, true); err != nil {
			return err
		}
		var got []coordinator.TxnLogRecord
		for _, rec := range r.coord.TxnLog() {
			if rec.TransactionalID == id {
				got = append(got, rec)
			}
		}
		return expectTxnLog(got, want)
	case "coord_markers_answered": // extension
		if !r.node {
			return fmt.Errorf("needs config.coordinatorNode")
		}
		o, err := parseObj(raw, keys("coordinatorEpoch", "errors", "deliver", "expect")...)
		if err != nil {
			return err
		}
		var (
			deliver bool
			errs    []string
			ce      int32 = -1
		)
		if err := firstErr(o.get("deliver", &deliver, false), o.get("errors", &errs, false), o.get("coordinatorEpoch", &ce, false)); err != nil {
			return err
		}
		if deliver && errs != nil {
			return fmt.Errorf("deliver and errors exclude each other")
		}
		return r.answerMarkers(ce, deliver, errs, o["expect"])
	case "coord_crash": // extension
		if !r.node {
			return fmt.Errorf("needs config.coordinatorNode")
		}
		if _, err := parseObj(raw, keys()...); err != nil {
			return err
		}
		r.coord.Crash()
		r.down = true
		r.wakes = nil
		for _, m := range r.outstanding {
			m.stale = true
		}
		return nil
	case "coord_restart": // extension
		if !r.node {
			return fmt.Errorf("needs config.coordinatorNode")
		}
		o, err := parseObj(raw, keys("expect")...)
		if err != nil {
			return err
		}
		r.down = false
		r.sent = nil
		if _, err := r.take(r.coord.Restart(r.now, false)); err != nil {
			return err
		}
		if !o.has("expect") {
			return nil
		}
		ex, err := parseObj(o["expect"], "markers")
		if err != nil {
			return fmt.Errorf("expect: %v", err)
		}
		var want []json.RawMessage
		if err := ex.get("markers", &want, true); err != nil {
			return err
		}
		return expectMarkers(r.sent, want)
	case "coord_check_timeouts": // extension, without config.coordinatorNode
		if r.node {
			return fmt.Errorf("with config.coordinatorNode the check runs at its boundaries during advance")
		}
		o, err := parseObj(raw, keys("expect")...)
		if err != nil {
			return err
		}
		mk := r.coord.AbortTimedOutTransactions(r.now)
		for _, m := range mk {
			r.coord.MarkersWritten(r.now, m.TransactionalID)
		}
		ex, err := parseObj(o["expect"], "markers")
		if err != nil {
			return fmt.Errorf("expect: %v", err)
		}
		var want []json.RawMessage
		if err := ex.get("markers", &want, true); err != nil {
			return err
		}
		return expectMarkers(mk, want)
	case "coord_expire": // extension, without config.coordinatorNode
		if r.node {
			return fmt.Errorf("with config.coordinatorNode the check runs at its boundaries during advance")
		}
		o, err := parseObj(raw, keys("expect")...)
		if err != nil {
			return err
		}
		got := r.coord.ExpireTransactionalIDs(r.now)
		ex, err := parseObj(o["expect"], "expired")
		if err != nil {
			return fmt.Errorf("expect: %v", err)
		}
		var want []string
		if err := ex.get("expired", &want, true); err != nil {
			return err
		}
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			return fmt.Errorf("expired = %v, want %v", got, want)
		}
		return nil
	}
	return fmt.Errorf("unknown op %q", op)
}

// expectAppend compares an append or marker result with its expect.
func (r *vecRunner) expectAppend(o jobj, res model.AppendResult) error {
	if !o.has("expect") {
		return fmt.Errorf("missing expect")
	}
	ex, err := parseObj(o["expect"], "result", "offset", "lastOffset", "error")
	if err != nil {
		return fmt.Errorf("expect: %v", err)
	}
	var result, errName string
	if err := firstErr(ex.get("result", &result, true), ex.get("error", &errName, false)); err != nil {
		return err
	}
	got := "ok"
	switch {
	case res.Err != model.ErrNone:
		got = "error"
	case res.Duplicate:
		got = "duplicate"
	}
	switch result {
	case "ok", "duplicate", "error":
	default:
		return fmt.Errorf("unknown result %q", result)
	}
	if got != result || (result == "error" && res.Err.String() != errName) {
		return fmt.Errorf("got result %s %v (%s), want %s %s", got, res.Err, res.Reason, result, errName)
	}
	for _, c := range []struct {
		k   string
		got int64
	}{{"offset", res.FirstOffset}, {"lastOffset", res.LastOffset}} {
		if ex.has(c.k) {
			var want int64
			if err := ex.get(c.k, &want, true); err != nil {
				return err
			}
			if c.got != want {
				return fmt.Errorf("%s = %d, want %d", c.k, c.got, want)
			}
		}
	}
	return nil
}

// expectCoord compares a coordinator response with its expect:
// {"pid","epoch"} or {"error"}, plus "result":"ok" where allowed and the
// "markers" extension.
func expectCoord(raw json.RawMessage, e model.ErrCode, pid model.ProducerID, epoch int16, markers []model.TxnMarker, allowResult bool) error {
	if raw == nil {
		return fmt.Errorf("missing expect")
	}
	allowed := []string{"pid", "epoch", "error", "markers"}
	if allowResult {
		allowed = append(allowed, "result")
	}
	ex, err := parseObj(raw, allowed...)
	if err != nil {
		return fmt.Errorf("expect: %v", err)
	}
	if ex.has("error") {
		var name string
		if err := ex.get("error", &name, true); err != nil {
			return err
		}
		if e.String() != name {
			return fmt.Errorf("error = %v, want %s", e, name)
		}
	} else if e != model.ErrNone {
		return fmt.Errorf("error = %v, want success", e)
	}
	if ex.has("result") {
		var res string
		if err := ex.get("result", &res, true); err != nil {
			return err
		}
		if res != "ok" {
			return fmt.Errorf("unknown result %q", res)
		}
	}
	if ex.has("pid") {
		var want int64
		if err := ex.get("pid", &want, true); err != nil {
			return err
		}
		if int64(pid) != want {
			return fmt.Errorf("pid = %d, want %d", pid, want)
		}
	}
	if ex.has("epoch") {
		var want int16
		if err := ex.get("epoch", &want, true); err != nil {
			return err
		}
		if epoch != want {
			return fmt.Errorf("epoch = %d, want %d", epoch, want)
		}
	}
	if ex.has("markers") {
		var want []json.RawMessage
		if err := ex.get("markers", &want, true); err != nil {
			return err
		}
		return expectMarkers(markers, want)
	}
	return nil
}

// checkState compares a producer entry with a check_state expect.
func (r *vecRunner) checkState(e *storage.ProducerStateEntry, raw json.RawMessage) error {
	if raw == nil {
		return fmt.Errorf("missing expect")
	}
	ex, err := parseObj(raw, "exists", "epoch", "lastSeq", "window", "ongoingTxn", "coordinatorEpoch")
	if err != nil {
		return fmt.Errorf("expect: %v", err)
	}
	if ex.has("exists") {
		var want bool
		if err := ex.get("exists", &want, true); err != nil {
			return err
		}
		if (e != nil) != want {
			return fmt.Errorf("exists = %v, want %v", e != nil, want)
		}
	}
	if e == nil {
		for _, k := range []string{"epoch", "lastSeq", "window", "ongoingTxn", "coordinatorEpoch"} {
			if ex.has(k) {
				return fmt.Errorf("no producer entry, but expect has %q", k)
			}
		}
		return nil
	}
	if ex.has("epoch") {
		var want int16
		if err := ex.get("epoch", &want, true); err != nil {
			return err
		}
		if e.Epoch != want {
			return fmt.Errorf("epoch = %d, want %d", e.Epoch, want)
		}
	}
	if ex.has("coordinatorEpoch") {
		var want int32
		if err := ex.get("coordinatorEpoch", &want, true); err != nil {
			return err
		}
		if e.CoordinatorEpoch != want {
			return fmt.Errorf("coordinatorEpoch = %d, want %d", e.CoordinatorEpoch, want)
		}
	}
	if ex.has("lastSeq") {
		var want int32
		if err := ex.get("lastSeq", &want, true); err != nil {
			return err
		}
		if got := lastSeq(e); got != want {
			return fmt.Errorf("lastSeq = %d, want %d", got, want)
		}
	}
	if ex.has("ongoingTxn") {
		var want bool
		if err := ex.get("ongoingTxn", &want, true); err != nil {
			return err
		}
		if got := e.TxnFirstOffset >= 0; got != want {
			return fmt.Errorf("ongoingTxn = %v, want %v", got, want)
		}
	}
	if ex.has("window") {
		var want [][4]int64
		if err := ex.get("window", &want, true); err != nil {
			return err
		}
		got := make([][4]int64, 0, len(e.Batches))
		for _, m := range e.Batches {
			got = append(got, [4]int64{int64(m.FirstSeq), int64(m.LastSeq), m.FirstOffset, m.LastOffset})
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("window = %v, want %v", got, want)
		}
	}
	return nil
}
