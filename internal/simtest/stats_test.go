package simtest

import (
	"strings"
	"testing"
)

// TestPropertyCoverage checks that the random schedules of
// TestIdempotenceProperty do reach the paths the property is about:
// duplicates answered from the broker's window, OUT_OF_ORDER_SEQUENCE
// retries and request timeouts.
func TestPropertyCoverage(t *testing.T) {
	var dup, oosn, timeouts, acks int
	for seed := range uint64(100) {
		s := runPropertyEnv(t, seed).All.String()
		dup += strings.Count(s, "b1 duplicate")
		oosn += strings.Count(s, "OUT_OF_ORDER_SEQUENCE_NUMBER}")
		timeouts += strings.Count(s, "timed out")
		acks += strings.Count(s, " ack ")
	}
	t.Logf("duplicates=%d oosn=%d timeouts=%d acks=%d", dup, oosn, timeouts, acks)
	if dup == 0 || oosn == 0 || timeouts == 0 || acks == 0 {
		t.Errorf("schedules miss a path: duplicates=%d oosn=%d timeouts=%d acks=%d", dup, oosn, timeouts, acks)
	}
}
