package sweep

import (
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/scenarios"
)

// fastColumns are the Result columns appendFastRow writes, in order. When
// they are the columns resultColumns finds (the runs.csv header), rows
// are written without reflection; otherwise (a Result field added and not
// yet here) the writer falls back to the reflective cells, and
// TestRunsCSVFastRows says which column is missing.
var fastColumns = []string{"scenario", "trace_hash", "events", "sim_time_ns", "stop", "bugs", "versions", "config_notes",
	"sent", "acked", "failed", "pending", "appended", "duplicates", "reordered", "lost_acked", "aborted", "txn_committed", "txn_aborted",
	"abandoned", "fenced", "zombie_writes", "zombie_attempts", "zombie_rejected", "client_epoch_bumps", "coordinator_epoch_bumps",
	"errors", "net.requests_sent", "net.responses_sent", "net.requests_lost", "net.responses_lost", "net.dropped",
	"net.server_sent", "net.server_dropped", "violations", "violations_cut", "reproduce"}

// fastMatches reports whether appendFastRow writes exactly cols.
func fastMatches(cols []resultColumn) bool {
	return slices.EqualFunc(cols, fastColumns, func(c resultColumn, name string) bool { return c.name == name })
}

// appendFastRow appends r's cells to the row b, each after a comma, as
// the reflective cell would format them (scalars as text; lists and maps
// as compact JSON, as encoding/json writes them) and encoding/csv would
// write them (appendCSVField); scratch is reused for the JSON cells.
func appendFastRow(b, scratch []byte, r *scenarios.Result) ([]byte, []byte) {
	str := func(s string) { b = appendCSVField(append(b, ','), s) }
	num := func(v int64) { b = strconv.AppendInt(append(b, ','), v, 10) } // digits and '-': never quoted
	js := func() { b = appendCSVField(append(b, ','), scratch) }
	str(r.Scenario)
	str(r.TraceHash)
	num(r.Events)
	num(r.SimTimeNs)
	str(r.Stop)
	scratch = appendJSONStrings(scratch[:0], r.Bugs)
	js()
	str(r.Versions)
	scratch = appendJSONStrings(scratch[:0], r.ConfigNotes)
	js()
	c := &r.Counts
	for _, v := range [...]int64{c.Sent, c.Acked, c.Failed, c.Pending, c.Appended, c.Duplicates, c.Reordered, c.LostAcked,
		c.Aborted, c.TxnCommitted, c.TxnAborted,
		r.Abandoned, r.Fenced, r.ZombieWrite, r.ZombieAttempts, r.ZombieRejected, r.ClientEpochBumps, r.CoordinatorEpochBumps} {
		num(v)
	}
	scratch = appendJSONCounts(scratch[:0], r.Errors)
	js()
	n := &r.Net
	for _, v := range [...]int64{n.RequestsSent, n.ResponsesSent, n.RequestsLost, n.ResponsesLost, n.Dropped, n.ServerSent, n.ServerDropped} {
		num(v)
	}
	scratch = appendJSONViolations(scratch[:0], r.Violations)
	js()
	num(int64(r.ViolationsCut))
	str(r.Reproduce)
	return b, scratch
}

// appendJSONViolations appends violations as encoding/json writes them
// ("null" for nil).
func appendJSONViolations(b []byte, vs []check.Violation) []byte {
	if vs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for k := range vs {
		v := &vs[k]
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"invariant":`...)
		b = appendJSONString(b, v.Invariant)
		b = append(b, `,"detail":`...)
		b = appendJSONString(b, v.Detail)
		b = append(b, `,"at_ns":`...)
		b = strconv.AppendInt(b, v.AtNs, 10)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendJSONStrings appends a list of strings as encoding/json does
// ("null" for nil).
func appendJSONStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for k, s := range ss {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendJSONCounts appends a map of counts as encoding/json does: keys
// sorted, "null" for nil.
func appendJSONCounts(b []byte, m map[string]int64) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for k, key := range keys {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, key)
		b = append(b, ':')
		b = strconv.AppendInt(b, m[key], 10)
	}
	return append(b, '}')
}

// appendJSONString appends s quoted as encoding/json quotes it (HTML
// characters, control characters, U+2028 and U+2029 escaped, invalid
// UTF-8 as U+FFFD).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for k := 0; k < len(s); {
		if c := s[k]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				k++
				continue
			}
			b = append(b, s[start:k]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			k++
			start = k
			continue
		}
		r, size := utf8.DecodeRuneInString(s[k:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:k]...)
			b = append(b, `\ufffd`...)
			k += size
			start = k
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:k]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			k += size
			start = k
			continue
		}
		k += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
