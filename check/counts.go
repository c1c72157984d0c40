package check

import "github.com/idemsim/idemsim/model"

// Counts are a run's tallies as the checker sees them.
type Counts struct {
	// Sent is the number of records the application sent.
	Sent int64 `json:"sent"`
	// Acked is the number of records acknowledged to the application.
	Acked int64 `json:"acked"`
	// Failed is the number of records reported failed.
	Failed int64 `json:"failed"`
	// Pending is the number of records with no outcome at the end.
	Pending int64 `json:"pending"`
	// Appended is the number of data records in the logs, copies included.
	Appended int64 `json:"appended"`
	// Duplicates counts extra copies: a record k times in the logs adds k-1.
	Duplicates int64 `json:"duplicates"`
	// Reordered counts records that reached their partition's log after a
	// record the same application sent later.
	Reordered int64 `json:"reordered"`
	// LostAcked counts acknowledged records missing from the logs.
	LostAcked int64 `json:"lost_acked"`
	// Aborted counts records of aborted transactions (read_committed
	// consumers skip them); records of transactions still open at the end
	// are neither appended nor aborted.
	Aborted int64 `json:"aborted"`
	// TxnCommitted and TxnAborted count the transactions the applications
	// were told ended: committed, or not (aborted, or failed with their
	// producer instance). A transaction's records count in Acked at their
	// produce acknowledgements whatever its end.
	TxnCommitted int64 `json:"txn_committed"`
	TxnAborted   int64 `json:"txn_aborted"`
	// Deleted counts the data records that retention or DeleteRecords
	// deleted: below their partition's final log start (deleted.go). They
	// count in Appended, and are not lost. The run report prints it when
	// it is not 0; -json and runs.csv leave it out (their columns stay).
	Deleted int64 `json:"-"`
}

// tally counts a run from the observation stream and the log view:
// Sent from the application's sends (a resend is not a new record),
// Pending from the run's end, TxnCommitted and TxnAborted from the
// transactions' outcomes, Acked and Failed from the outcomes (a record
// acknowledged by any instance counts as acknowledged, else as failed),
// Appended, Duplicates, Reordered and Aborted as records become committed
// or aborted, LostAcked at the end.
type tally struct {
	lv *logView
	c  Counts
}

func (t *tally) observe(o *model.Obs) {
	switch o.Kind {
	case model.ObsAppSend:
		t.c.Sent++
	case model.ObsRunEnd:
		t.c.Pending = o.N
	case model.ObsTxnOutcome:
		if o.Flag {
			t.c.TxnCommitted++
		} else {
			t.c.TxnAborted++
		}
	}
	for _, c := range t.lv.commits {
		t.c.Appended++
		if c.again {
			t.c.Duplicates++
		}
		if c.reordered {
			t.c.Reordered++
		}
	}
	t.c.Aborted += t.lv.aborted
}

// finish returns the run's counts; call it once the run ended.
func (t *tally) finish() Counts {
	c := t.c
	c.Acked, c.Failed = t.lv.recs.acked, t.lv.recs.failed
	c.LostAcked = int64(len(t.lv.lostAcked()))
	c.Deleted = t.lv.deleted()
	return c
}
