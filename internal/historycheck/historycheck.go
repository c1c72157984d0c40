// Package historycheck is a deliberately simple second checker of
// idemsim runs. It reads only a run's exported history, as JSON lines
// (docs/history.md), never the simulator's internals, and reports four
// kinds of anomaly from the final reads:
//
//   - duplicates: a value the final read_committed poll returns at more
//     than one offset;
//   - lost writes: a value some ok operation acknowledged that the final
//     read_committed poll does not return;
//   - unseen acknowledged writes: an acknowledged (partition, offset,
//     value) that the final read_uncommitted poll does not return at that
//     offset (it holds another value there, or nothing);
//   - aborted reads: a value the final read_committed poll returns
//     although every operation that sent it failed.
//
// Its tests hold it and idemsim's invariants to the same verdicts run by
// run (duplicates ⇔ INV-DUP, lost writes ⇔ INV-LOSS, unseen acknowledged
// writes ⇔ INV-DEDUP's acknowledged-offset check, aborted reads ⇔ none
// until INV-TXN exists); a disagreement is a bug in one of them.
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
	// Sends and Polls are the operation's micro-operations, decoded.
	Sends []Send `json:"-"`
	Polls []Poll `json:"-"`
}

// Send is a [:send key value] or [:send key [offset value]]
// micro-operation. Offset is -1 when the send has no offset (an
// invocation, a failure) or an unknown one (nil).
type Send struct {
	Key, Value, Offset int64
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

// Write is one value at a place: an anomaly's record.
type Write struct {
	Key, Offset, Value int64
}

// Dup is a value the final read_committed poll returns at more than one
// place.
type Dup struct {
	Value  int64
	Places []Write
}

// Report is what the checker found. Every list is in a fixed order (by
// value, then place).
type Report struct {
	Duplicates []Dup
	// ExtraCopies counts the copies beyond the first: a value k times in
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
// with final "read_committed" and "read_uncommitted").
func Check(ops []Op) (*Report, error) {
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
	rep := &Report{}

	// What the final read_committed poll holds, value by value.
	where := map[int64][]Write{}
	for _, k := range sortedKeys(rc) {
		for _, r := range rc[k] {
			where[r.Value] = append(where[r.Value], Write{Key: k, Offset: r.Offset, Value: r.Value})
		}
	}
	for _, v := range sortedKeys(where) {
		if ws := where[v]; len(ws) > 1 {
			rep.Duplicates = append(rep.Duplicates, Dup{Value: v, Places: ws})
			rep.ExtraCopies += len(ws) - 1
		}
	}

	// What the final read_uncommitted poll holds, place by place.
	at := map[[2]int64]int64{}
	for k, recs := range ru {
		for _, r := range recs {
			at[[2]int64{k, r.Offset}] = r.Value
		}
	}

	// The sends of completed operations: acknowledged ones, and the types
	// of every operation that sent each value.
	acked := map[int64][]Write{}
	sentBy := map[int64][]string{}
	for _, op := range ops {
		if op.Type == "invoke" || op.F == "poll" {
			continue
		}
		for _, s := range op.Sends {
			sentBy[s.Value] = append(sentBy[s.Value], op.Type)
			if op.Type == "ok" {
				acked[s.Value] = append(acked[s.Value], Write{Key: s.Key, Offset: s.Offset, Value: s.Value})
			}
		}
	}
	for _, v := range sortedKeys(acked) {
		ws := acked[v]
		if len(where[v]) == 0 {
			rep.LostWrites = append(rep.LostWrites, ws[0])
		}
		for _, w := range ws {
			if w.Offset < 0 {
				continue
			}
			if got, ok := at[[2]int64{w.Key, w.Offset}]; !ok || got != v {
				rep.Unseen = append(rep.Unseen, w)
			}
		}
	}
	for _, v := range sortedKeys(where) {
		types := sentBy[v]
		if len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return t != "fail" }) {
			rep.AbortedReads = append(rep.AbortedReads, where[v][0])
		}
	}
	return rep, nil
}

func sortedKeys[V any](m map[int64]V) []int64 {
	ks := make([]int64, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
