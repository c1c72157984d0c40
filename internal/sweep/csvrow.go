package sweep

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/idemsim/idemsim/scenarios"
)

// fastColumns are the Result columns appendFast writes, in order. When
// they are the columns resultColumns finds (the runs.csv header), rows
// are written without reflection; otherwise (a Result field added and not
// yet here) the writer falls back to the reflective cells, and
// TestRunsCSVFastRows says which column is missing.
var fastColumns = []string{"scenario", "trace_hash", "events", "sim_time_ns", "stop", "bugs", "versions", "config_notes",
	"sent", "acked", "failed", "pending", "appended", "duplicates", "reordered", "lost_acked", "aborted", "txn_committed", "txn_aborted",
	"abandoned", "fenced", "zombie_writes", "zombie_attempts", "zombie_rejected", "client_epoch_bumps", "coordinator_epoch_bumps",
	"errors", "net.requests_sent", "net.responses_sent", "net.requests_lost", "net.responses_lost", "net.dropped",
	"net.server_sent", "net.server_dropped", "violations", "violations_cut", "reproduce"}

// fastMatches reports whether appendFast writes exactly cols.
func fastMatches(cols []resultColumn) bool {
	return slices.EqualFunc(cols, fastColumns, func(c resultColumn, name string) bool { return c.name == name })
}

// appendFast appends r's cells, as the reflective cell would format them
// (scalars as text; lists and maps as compact JSON, as encoding/json
// writes them), using buf for the text.
func appendFast(rec []string, buf []byte, r *scenarios.Result) ([]string, []byte, error) {
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	rec = append(rec, r.Scenario, r.TraceHash, i(r.Events), i(r.SimTimeNs), r.Stop)
	buf = appendJSONStrings(buf[:0], r.Bugs)
	rec = append(rec, string(buf), r.Versions)
	buf = appendJSONStrings(buf[:0], r.ConfigNotes)
	rec = append(rec, string(buf))
	c := &r.Counts
	rec = append(rec, i(c.Sent), i(c.Acked), i(c.Failed), i(c.Pending), i(c.Appended), i(c.Duplicates), i(c.Reordered), i(c.LostAcked),
		i(c.Aborted), i(c.TxnCommitted), i(c.TxnAborted),
		i(r.Abandoned), i(r.Fenced), i(r.ZombieWrite), i(r.ZombieAttempts), i(r.ZombieRejected), i(r.ClientEpochBumps), i(r.CoordinatorEpochBumps))
	buf = appendJSONCounts(buf[:0], r.Errors)
	rec = append(rec, string(buf))
	n := &r.Net
	rec = append(rec, i(n.RequestsSent), i(n.ResponsesSent), i(n.RequestsLost), i(n.ResponsesLost), i(n.Dropped), i(n.ServerSent), i(n.ServerDropped))
	switch {
	case r.Violations == nil:
		rec = append(rec, "null")
	case len(r.Violations) == 0:
		rec = append(rec, "[]")
	default:
		// Violations are rare and their type belongs to the checkers:
		// encoding/json writes them, as in -json.
		b, err := json.Marshal(r.Violations)
		if err != nil {
			return nil, buf, err
		}
		rec = append(rec, string(b))
	}
	rec = append(rec, i(r.ViolationsCut), r.Reproduce)
	return rec, buf, nil
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
