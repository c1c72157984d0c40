package model

import "testing"

// TestCheckerAckedOffsets: an acknowledgement must point at the record's
// own copy (INV-DEDUP); a "duplicate" answer for colliding data does not.
func TestCheckerAckedOffsets(t *testing.T) {
	a, b := RecordID{N: 0}, RecordID{N: 1}
	log := []LogEntry{{FirstOffset: 0, LastOffset: 0, Batch: Batch{Records: []Record{{ID: a, Digest: Digest(a, 0)}}}}}
	for _, tc := range []struct {
		name string
		o    Outcome
		want int
	}{
		{"own copy", Outcome{ID: a, Digest: Digest(a, 0), Offset: 0}, 0},
		{"collision with other record", Outcome{ID: b, Digest: Digest(b, 0), Offset: 0}, 1},
		{"same id, other payload", Outcome{ID: a, Digest: Digest(a, 1), Offset: 0}, 1},
		{"offset unknown", Outcome{ID: b, Offset: -1}, 0},
		{"offset beyond the log", Outcome{ID: b, Offset: 5}, 1},
	} {
		got := checkAckedOffsets(map[RecordID]Outcome{tc.o.ID: tc.o}, [][]LogEntry{log})
		if len(got) != tc.want {
			t.Errorf("%s: %d violations %v, want %d", tc.name, len(got), got, tc.want)
		}
	}
}
