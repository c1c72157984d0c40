// Package historycheck is a deliberately simple second checker of
// idemsim runs. It reads only a run's exported history, as JSON lines
// (docs/history.md), never the simulator's internals.
//
// Each write has a value of its own, and each send names the logical
// record it writes in its operation's "records" field: a record the
// application sends again is a second write of the same record. Check
// refuses a history in which a value is written twice (by two
// invocations, or completed twice), and reports four kinds of anomaly
// from the final reads:
//
//   - duplicates: a logical record the final read_committed poll returns
//     at more than one offset (whichever writes put the copies there);
//   - lost writes: a logical record some ok operation acknowledged that
//     the final read_committed poll does not return at all;
//   - unseen acknowledged writes: an acknowledged (partition, offset,
//     record) that the final read_uncommitted poll does not return at that
//     offset (it holds another record there, or nothing);
//   - aborted reads: a value the final read_committed poll returns
//     although the operation that wrote it failed.
//
// A format 1 history (without "records") is read with each value its own
// record; one in which the application sent a record again repeats the
// value, and is refused.
//
// Its tests hold it and idemsim's invariants to the same verdicts run by
// run (duplicates ⇔ INV-DUP, lost writes ⇔ INV-LOSS, unseen acknowledged
// writes ⇔ INV-DEDUP's acknowledged-offset check, aborted reads ⇔
// INV-TXN's aborted-read clause); a disagreement is a bug in one of them.
//
// The package imports only the standard library.
package historycheck

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// Op is one operation of a history, as the JSON lines hold it.
type Op struct {
	Index   int64  `json:"index"`
	Time    int64  `json:"time"`
	Process int64  `json:"process"`
	Type    string `json:"type"`
	F       string `json:"f"`
	Final   string `json:"final"`
	Error   string `json:"error"`
	// Sends and Polls are the operation's micro-operations, decoded; each
	// send's Record comes from the "records" field.
	Sends []Send `json:"-"`
	Polls []Poll `json:"-"`
}

// Send is a [:send key value] or [:send key [offset value]]
// micro-operation, and the logical record it writes (the operation's
// "records" field; the value itself in a format 1 history, which has
// none). Offset is -1 when the send has no offset (an invocation, a
// failure) or an unknown one (nil).
type Send struct {
	Key, Value, Offset, Record int64
}

// Poll is a [:poll {key [[offset value] ...]}] micro-operation: per key,
// the records read in order.
type Poll map[int64][]Record

// Record is an offset and a value.
type Record struct {
	Offset, Value int64
}

// Read parses a history in JSON lines.
func Read(r io.Reader) ([]Op, error) {
	var ops []Op
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		op, err := parseOp(b)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		ops = append(ops, op)
	}
	return ops, sc.Err()
}

func parseOp(b []byte) (Op, error) {
	v, err := parseJSON(b)
	if err != nil {
		return Op{}, err
	}
	obj, ok := v.(jobject)
	if !ok {
		return Op{}, errors.New("not a JSON object")
	}
	var op Op
	for _, f := range []struct {
		key string
		n   *int64
	}{{"index", &op.Index}, {"time", &op.Time}, {"process", &op.Process}} {
		x, _ := obj.get(f.key)
		n, ok := x.(int64)
		if !ok {
			return Op{}, fmt.Errorf("%q is not an integer", f.key)
		}
		*f.n = n
	}
	for _, f := range []struct {
		key      string
		s        *string
		optional bool
	}{{"type", &op.Type, false}, {"f", &op.F, false}, {"final", &op.Final, true}, {"error", &op.Error, true}} {
		x, present := obj.get(f.key)
		s, ok := x.(string)
		if !ok && (present || !f.optional) {
			return Op{}, fmt.Errorf("%q is not a string", f.key)
		}
		*f.s = s
	}
	val, _ := obj.get("value")
	mops, ok := val.([]jvalue)
	if !ok {
		return Op{}, errors.New(`"value" is not an array`)
	}
	for _, m := range mops {
		parts, ok := m.([]jvalue)
		if !ok || len(parts) == 0 {
			return Op{}, fmt.Errorf("micro-operation %v is not a non-empty array", m)
		}
		switch parts[0] {
		case "send":
			s, err := parseSend(parts)
			if err != nil {
				return Op{}, fmt.Errorf("micro-operation %v: %v", m, err)
			}
			op.Sends = append(op.Sends, s)
		case "poll":
			p, err := parsePoll(parts)
			if err != nil {
				return Op{}, fmt.Errorf("micro-operation %v: %v", m, err)
			}
			op.Polls = append(op.Polls, p)
		default:
			return Op{}, fmt.Errorf("micro-operation %v: unknown function %v", m, parts[0])
		}
	}
	recs, present := obj.get("records")
	if !present {
		// Format 1: a value names its record.
		for i := range op.Sends {
			op.Sends[i].Record = op.Sends[i].Value
		}
		return op, nil
	}
	list, ok := recs.([]jvalue)
	if !ok || len(list) != len(op.Sends) {
		return Op{}, fmt.Errorf(`"records" is not an array of one record per send (%d sends)`, len(op.Sends))
	}
	for i, x := range list {
		r, ok := x.(int64)
		if !ok {
			return Op{}, fmt.Errorf(`"records": %v is not an integer`, x)
		}
		op.Sends[i].Record = r
	}
	return op, nil
}

// parseSend reads ["send", key, value] or ["send", key, [offset, value]]
// (offset null: unknown).
func parseSend(parts []jvalue) (Send, error) {
	if len(parts) != 3 {
		return Send{}, errors.New(`want ["send", key, value]`)
	}
	s := Send{Offset: -1}
	k, ok := parts[1].(int64)
	if !ok {
		return Send{}, errors.New("key is not an integer")
	}
	s.Key = k
	switch v := parts[2].(type) {
	case int64:
		s.Value = v
	case []jvalue:
		val, ok := v[len(v)-1].(int64)
		if len(v) != 2 || !ok {
			return Send{}, errors.New("want [offset, value]")
		}
		s.Value = val
		switch off := v[0].(type) {
		case int64:
			s.Offset = off
		case nil:
		default:
			return Send{}, errors.New("offset is neither an integer nor null")
		}
	default:
		return Send{}, errors.New("value is neither an integer nor [offset, value]")
	}
	return s, nil
}

// parsePoll reads ["poll"] or ["poll", {"key": [[offset, value], ...]}].
func parsePoll(parts []jvalue) (Poll, error) {
	p := Poll{}
	if len(parts) == 1 {
		return p, nil
	}
	keys, ok := parts[1].(jobject)
	if len(parts) != 2 || !ok {
		return nil, errors.New(`want ["poll", {key: [[offset, value], ...]}]`)
	}
	for _, m := range keys {
		k, x := m.key, m.val
		key, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("key %q is not an integer", k)
		}
		recs, ok := x.([]jvalue)
		if !ok {
			return nil, fmt.Errorf("key %s: not an array", k)
		}
		out := make([]Record, 0, len(recs))
		for _, r := range recs {
			pair, ok := r.([]jvalue)
			if !ok || len(pair) != 2 {
				return nil, fmt.Errorf("key %s: %v is not [offset, value]", k, r)
			}
			off, ok1 := pair[0].(int64)
			val, ok2 := pair[1].(int64)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("key %s: %v is not [offset, value]", k, r)
			}
			out = append(out, Record{Offset: off, Value: val})
		}
		p[key] = out
	}
	return p, nil
}

// Write is one write at a place: an anomaly's record. Value names the
// write, Record the logical record it writes.
type Write struct {
	Key, Offset, Value, Record int64
}

// Dup is a logical record the final read_committed poll returns at more
// than one place (the copies' values tell which writes they are: one
// write twice, a producer's retry, or two writes of the record).
type Dup struct {
	Record int64
	Places []Write
}

// Report is what the checker found. Every list is in a fixed order (by
// value, then place).
type Report struct {
	Duplicates []Dup
	// ExtraCopies counts the copies beyond the first: a record k times in
	// the final read adds k-1.
	ExtraCopies  int
	LostWrites   []Write // Offset is the acknowledged offset, -1 if unknown
	Unseen       []Write
	AbortedReads []Write
}

// Clean reports whether the report holds no anomaly.
func (r *Report) Clean() bool {
	return len(r.Duplicates) == 0 && len(r.LostWrites) == 0 && len(r.Unseen) == 0 && len(r.AbortedReads) == 0
}

// Check judges a history. It needs the two final polls (ok operations
// with final "read_committed" and "read_uncommitted"), and refuses a
// history in which a value is written twice (see [Writes]).
func Check(ops []Op) (*Report, error) {
	record, err := Writes(ops)
	if err != nil {
		return nil, err
	}
	var rc, ru Poll
	for _, op := range ops {
		if op.Type != "ok" || op.F != "poll" || len(op.Polls) != 1 {
			continue
		}
		switch op.Final {
		case "read_committed":
			rc = op.Polls[0]
		case "read_uncommitted":
			ru = op.Polls[0]
		}
	}
	if rc == nil || ru == nil {
		return nil, errors.New("history has no final read_committed and read_uncommitted polls")
	}
	// The logical record of a value read: every value read must have
	// been written.
	recordOf := func(poll string, k int64, r Record) (int64, error) {
		rec, ok := record[r.Value]
		if !ok {
			return 0, fmt.Errorf("the final %s poll reads value %d at key %d offset %d, which no operation wrote", poll, r.Value, k, r.Offset)
		}
		return rec, nil
	}
	rep := &Report{}

	// What the final read_committed poll holds: the places of each
	// logical record, and the values read.
	where := map[int64][]Write{}
	read := map[int64]Write{}
	for _, k := range sortedKeys(rc) {
		for _, r := range rc[k] {
			rec, err := recordOf("read_committed", k, r)
			if err != nil {
				return nil, err
			}
			w := Write{Key: k, Offset: r.Offset, Value: r.Value, Record: rec}
			where[rec] = append(where[rec], w)
			if _, ok := read[r.Value]; !ok {
				read[r.Value] = w
			}
		}
	}
	for _, rec := range sortedKeys(where) {
		if ws := where[rec]; len(ws) > 1 {
			rep.Duplicates = append(rep.Duplicates, Dup{Record: rec, Places: ws})
			rep.ExtraCopies += len(ws) - 1
		}
	}

	// What the final read_uncommitted poll holds, place by place: the
	// logical record.
	at := map[[2]int64]int64{}
	for _, k := range sortedKeys(ru) {
		for _, r := range ru[k] {
			rec, err := recordOf("read_uncommitted", k, r)
			if err != nil {
				return nil, err
			}
			at[[2]int64{k, r.Offset}] = rec
		}
	}

	// The sends of completed operations: the acknowledged ones, by
	// logical record, and the type of the operation that completed each
	// write.
	acked := map[int64][]Write{}
	doneAs := map[int64]string{}
	for _, op := range ops {
		if op.Type == "invoke" || op.F == "poll" {
			continue
		}
		for _, s := range op.Sends {
			doneAs[s.Value] = op.Type
			if op.Type == "ok" {
				acked[s.Record] = append(acked[s.Record], Write{Key: s.Key, Offset: s.Offset, Value: s.Value, Record: s.Record})
			}
		}
	}
	for _, rec := range sortedKeys(acked) {
		ws := acked[rec]
		if len(where[rec]) == 0 {
			// Lost: that is the whole anomaly, not also an unseen
			// acknowledged write (INV-LOSS alone, as the invariants
			// judge it).
			rep.LostWrites = append(rep.LostWrites, ws[0])
			continue
		}
		for _, w := range ws {
			if w.Offset < 0 {
				continue
			}
			if got, ok := at[[2]int64{w.Key, w.Offset}]; !ok || got != rec {
				rep.Unseen = append(rep.Unseen, w)
			}
		}
	}
	for _, v := range sortedKeys(read) {
		if doneAs[v] == "fail" {
			rep.AbortedReads = append(rep.AbortedReads, read[v])
		}
	}
	return rep, nil
}

// Writes returns the logical record of every value a history writes, and
// refuses a history in which a value is written twice: by two invocations
// (or twice in one), or completed by two operations, as Jepsen's Kafka
// checker assumes no history does; or in which one value names two
// records. A format 1 history (without "records") in which the
// application sent a record again repeats its value, and is refused too.
func Writes(ops []Op) (map[int64]int64, error) {
	record := map[int64]int64{}
	invoked, completed := map[int64]int64{}, map[int64]int64{}
	for _, op := range ops {
		if op.F == "poll" {
			continue
		}
		by := invoked
		if op.Type != "invoke" {
			by = completed
		}
		for _, s := range op.Sends {
			if prev, ok := by[s.Value]; ok {
				return nil, fmt.Errorf("value %d is written twice, by operations %d and %d: every write needs a value of its own (docs/history.md; a format 1 history, without \"records\", repeats the value of a record the application sent again)", s.Value, prev, op.Index)
			}
			by[s.Value] = op.Index
			if rec, ok := record[s.Value]; ok && rec != s.Record {
				return nil, fmt.Errorf("value %d names record %d and, in operation %d, record %d", s.Value, rec, op.Index, s.Record)
			}
			record[s.Value] = s.Record
		}
	}
	return record, nil
}

func sortedKeys[V any](m map[int64]V) []int64 {
	ks := make([]int64, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
