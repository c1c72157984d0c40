// Package history writes a run's client-visible history
// ([History]) in the two forms independent checkers read
// (docs/history.md):
//
//   - JSON lines (.jsonl): one JSON object per operation, keys the field
//     names of Jepsen's operations without colons, values such as ok and
//     send as plain strings:
//     {"index":12,"time":27820037000,"process":3,"type":"ok","f":"send","value":[["send",0,[60,20]]],"records":[20]}
//     Both final polls are kept, each marked "final".
//   - EDN (.edn): one operation map per line, as Jepsen's store writes
//     history.edn, for jepsen.tests.kafka's checker. It differs from the
//     JSON lines in one way, for Jepsen's sake: only the read_committed
//     final poll is written, since Jepsen would report the aborted
//     records a read_uncommitted poll returns as aborted reads.
//
// Every write has a value of its own ([WriteValue]), as Jepsen's checker
// assumes: a record the application sends again is a new write with a new
// value, and the logical record each send writes travels in the
// operation's "records" field (:records in EDN), one per send. This is
// format [FormatVersion] of the history; docs/history.md describes it and
// what changed from format 1.
package history

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FormatVersion is the history format's version (docs/history.md,
// "Format versions"): 2 gives every write a value of its own and adds the
// "records" field; format 1 histories have no "records" field and repeat
// a record's value when the application sends the record again.
const FormatVersion = 2

// Format is a written form of a history.
type Format uint8

// The forms, by file extension.
const (
	JSONL Format = iota
	EDN
)

// Extensions are the file extensions of the forms, in Format order.
var Extensions = []string{".jsonl", ".edn"}

// Ext returns the form's file extension.
func (f Format) Ext() string { return Extensions[f] }

// FormatOf returns the form a file name asks for by its extension.
func FormatOf(path string) (Format, error) {
	ext := strings.ToLower(filepath.Ext(path))
	for i, e := range Extensions {
		if ext == e {
			return Format(i), nil
		}
	}
	return 0, fmt.Errorf("%s: extension %q is not allowed (allowed: %s)", path, ext, strings.Join(Extensions, ", "))
}

// Write writes h to w in form f.
func Write(w io.Writer, h *History, f Format) error {
	bw := bufio.NewWriter(w)
	var b []byte
	for i := range h.Ops {
		op := &h.Ops[i]
		b = b[:0]
		switch f {
		case JSONL:
			b = AppendJSON(b, op)
		case EDN:
			if op.Final == FinalReadUncommitted {
				continue
			}
			b = AppendEDN(b, op)
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteFile writes h to path, in the form its extension names.
func WriteFile(path string, h *History) error {
	f, err := FormatOf(path)
	if err != nil {
		return err
	}
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	err = Write(file, h, f)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return err
}

// AppendJSON appends op as one JSON object (without a newline): index,
// time, process, type, f, final (final polls only), value, records (sends
// and transactions only: the logical record of each send, in order) and
// error (fail and info only).
func AppendJSON(b []byte, op *HistoryOp) []byte {
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(op.Index), 10)
	b = append(b, `,"time":`...)
	b = strconv.AppendInt(b, int64(op.Time), 10)
	b = append(b, `,"process":`...)
	b = strconv.AppendInt(b, int64(op.Process), 10)
	b = append(b, `,"type":"`...)
	b = append(b, op.Type.String()...)
	b = append(b, `","f":"`...)
	b = append(b, op.F.String()...)
	b = append(b, '"')
	if op.Final != NotFinal {
		b = append(b, `,"final":"`...)
		b = append(b, op.Final.String()...)
		b = append(b, '"')
	}
	b = append(b, `,"value":[`...)
	for i, m := range op.Value {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendMop(b, m, jsonSyntax)
	}
	b = append(b, ']')
	if op.F != OpPoll {
		b = append(b, `,"records":`...)
		b = appendRecords(b, op, jsonSyntax)
	}
	if op.Error != "" {
		b = append(b, `,"error":`...)
		b = strconv.AppendQuote(b, op.Error)
	}
	return append(b, '}')
}

// AppendEDN appends op as one EDN map (without a newline), keys in the
// order Jepsen prints an operation: :index, :time, :type, :process, :f,
// :value, then :records (sends and transactions), :final and :error when
// set.
func AppendEDN(b []byte, op *HistoryOp) []byte {
	b = append(b, "{:index "...)
	b = strconv.AppendInt(b, int64(op.Index), 10)
	b = append(b, ", :time "...)
	b = strconv.AppendInt(b, int64(op.Time), 10)
	b = append(b, ", :type :"...)
	b = append(b, op.Type.String()...)
	b = append(b, ", :process "...)
	b = strconv.AppendInt(b, int64(op.Process), 10)
	b = append(b, ", :f :"...)
	b = append(b, op.F.String()...)
	b = append(b, ", :value ["...)
	for i, m := range op.Value {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendMop(b, m, ednSyntax)
	}
	b = append(b, ']')
	if op.F != OpPoll {
		b = append(b, ", :records "...)
		b = appendRecords(b, op, ednSyntax)
	}
	if op.Final != NotFinal {
		b = append(b, ", :final :"...)
		b = append(b, strings.ReplaceAll(op.Final.String(), "_", "-")...)
	}
	if op.Error != "" {
		b = append(b, ", :error "...)
		b = strconv.AppendQuote(b, op.Error)
	}
	return append(b, '}')
}

// syntax is what JSON and EDN spell differently.
type syntax struct {
	sep, kv      string // between elements, between a map key and value
	null         string
	send, poll   string
	quoteMapKeys bool
}

var (
	jsonSyntax = syntax{sep: ",", kv: ":", null: "null", send: `"send"`, poll: `"poll"`, quoteMapKeys: true}
	ednSyntax  = syntax{sep: " ", kv: " ", null: "nil", send: ":send", poll: ":poll"}
)

// appendRecords appends the logical records of op's sends, in order:
// [20,1000007] (EDN: [20 1000007]).
func appendRecords(b []byte, op *HistoryOp, s syntax) []byte {
	b = append(b, '[')
	for i, m := range op.Value {
		if i > 0 {
			b = append(b, s.sep...)
		}
		b = strconv.AppendInt(b, m.Record, 10)
	}
	return append(b, ']')
}

// appendMop appends ["send",k,v], ["send",k,[offset,v]], ["poll"] or
// ["poll",{"k":[[offset,v],...]}] (EDN: [:send k v], ...).
func appendMop(b []byte, m Mop, s syntax) []byte {
	b = append(b, '[')
	if m.Poll {
		b = append(b, s.poll...)
		if m.Reads != nil {
			b = append(b, s.sep...)
			b = append(b, '{')
			for i, kr := range m.Reads {
				if i > 0 {
					b = append(b, s.sep...)
				}
				if s.quoteMapKeys {
					b = append(b, '"')
				}
				b = strconv.AppendInt(b, int64(kr.Key), 10)
				if s.quoteMapKeys {
					b = append(b, '"')
				}
				b = append(b, s.kv...)
				b = append(b, '[')
				for j, r := range kr.Records {
					if j > 0 {
						b = append(b, s.sep...)
					}
					b = append(b, '[')
					b = strconv.AppendInt(b, r.Offset, 10)
					b = append(b, s.sep...)
					b = strconv.AppendInt(b, r.Value, 10)
					b = append(b, ']')
				}
				b = append(b, ']')
			}
			b = append(b, '}')
		}
		return append(b, ']')
	}
	b = append(b, s.send...)
	b = append(b, s.sep...)
	b = strconv.AppendInt(b, int64(m.Key), 10)
	b = append(b, s.sep...)
	if !m.Acked {
		b = strconv.AppendInt(b, m.Value, 10)
		return append(b, ']')
	}
	b = append(b, '[')
	if m.Offset < 0 {
		b = append(b, s.null...)
	} else {
		b = strconv.AppendInt(b, m.Offset, 10)
	}
	b = append(b, s.sep...)
	b = strconv.AppendInt(b, m.Value, 10)
	return append(b, "]]"...)
}
