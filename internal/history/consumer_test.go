package history

import "testing"

// TestConsumerPolls: a run with a read_committed consumer (lsolag)
// carries its polls as poll operations of their own, not final; every
// record a poll read is in the final read_committed poll at the same
// offset, with the same value, and the polls read the partition in
// offset order without a repeat.
func TestConsumerPolls(t *testing.T) {
	h, _, _ := run(t, "lsolag", 1)
	final := map[int64]int64{}
	for _, op := range h.Ops {
		if op.Final == FinalReadCommitted && op.Type == OpOK {
			for _, kr := range op.Value[0].Reads {
				for _, r := range kr.Records {
					final[r.Offset] = r.Value
				}
			}
		}
	}
	polls, read, last := 0, 0, int64(-1)
	for _, op := range h.Ops {
		if op.F != OpPoll || op.Final != NotFinal || op.Type != OpOK {
			continue
		}
		polls++
		for _, kr := range op.Value[0].Reads {
			for _, r := range kr.Records {
				read++
				if v, ok := final[r.Offset]; !ok || v != r.Value {
					t.Errorf("a poll read value %d at offset %d; the final read_committed poll has %d there (%v)", r.Value, r.Offset, v, ok)
				}
				if r.Offset <= last {
					t.Errorf("offset %d read after %d", r.Offset, last)
				}
				last = r.Offset
			}
		}
	}
	if polls == 0 || read != len(final) {
		t.Errorf("%d consumer polls read %d records; the final read_committed poll holds %d", polls, read, len(final))
	}
}
