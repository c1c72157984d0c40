package check

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/idemsim/idemsim/model"
)

// LiveLSO is the last stable offset's liveness: once faults stop, no
// partition's LSO stays pinned by a hanging transaction, one that no
// transaction coordinator will ever mark (KIP-890's "hanging
// transactions"; -bug Z19).
const LiveLSO = "LIVE-LSO"

// liveLSO judges LIVE-LSO at Finish. For every partition whose LSO
// ([readCommitted]) is below its log end, it looks at the open
// transaction that pins it, of producer id pid, and at what the
// coordinator last installed ([model.ObsTxnState], the latest per
// transactional id). The transaction is hanging, and reported, when no
// transactional id's latest state has producer id pid (the pid is unknown
// to the coordinator), or when the one that has it is not Ongoing,
// PrepareCommit or PrepareAbort with the partition in its partition set
// (Kafka's kafka-transactions.sh find-hanging, TransactionsCommand
// .filterHangingTransactions, tools/src/main/java/org/apache/kafka/tools/
// TransactionsCommand.java l.625). A transaction the coordinator still
// holds open with the partition is not hanging: it will complete, or the
// coordinator's timeout will abort it, however late the run ended.
//
// A stream with no ObsTxnState at all (a world whose coordinator does not
// report its states) cannot tell a hanging transaction from one the
// coordinator still holds: LIVE-LSO then reports nothing.
//
// The report names the partition, the pid, the pinning transaction's
// first offset, the high watermark (the log end: no replication) minus
// the LSO (Kafka's LastStableOffsetLag), why it is hanging, and how many
// records of transactions reported committed wait above the LSO (INV-TXN
// leaves those to LIVE-LSO).
type liveLSO struct {
	cfg Config
	lv  *logView
}

func newLiveLSO() invariant { return &liveLSO{} }

func (l *liveLSO) reset(cfg Config, lv *logView) { l.cfg, l.lv = cfg, lv }

func (l *liveLSO) Name() string { return LiveLSO }

func (l *liveLSO) Observe(*model.Obs) {}

func (l *liveLSO) reads() []model.ObsKind { return nil } // it judges the log view at the end

func (l *liveLSO) Finish() []Violation {
	var out []Violation
	views := l.lv.rcViews()
	for p := range l.lv.logs {
		log, v := &l.lv.logs[p], &views[p]
		if v.pin < 0 {
			continue
		}
		pin := log.at(v.pin)
		why, hanging := l.hanging(pin.pid, int32(p))
		if !hanging {
			continue
		}
		var waiting int
		for i := range log.len() {
			if v.fate[i] != fateStuck {
				continue
			}
			e := log.at(i)
			for j := range int(e.nrec) {
				if l.lv.recs.txnCommitted(l.lv.recID(&e, j)) {
					waiting++
				}
			}
		}
		who := ""
		if k := l.lv.tx.key(int32(p), v.pin); k.known() {
			who = " (" + k.describe(l.cfg) + ")"
		}
		out = append(out, violation(LiveLSO, l.lv.end, fmt.Sprintf("p%d: the LSO is stuck at offset %d, %d below the high watermark %d, by the open transaction of pid %d%s that no coordinator will mark: %s; %d records reported committed wait above it",
			p, v.lso, v.leo-v.lso, v.leo, pin.pid, who, why, waiting)))
	}
	return out
}

// hanging reports whether an open transaction of pid on partition p is
// one no coordinator will mark, and why.
func (l *liveLSO) hanging(pid model.ProducerID, p int32) (string, bool) {
	tx := &l.lv.tx
	if !tx.sawCoord {
		return "", false
	}
	var st *coordState
	for i := range tx.coord { // in id order
		if s := &tx.coord[i]; s.pid == pid && (st == nil || cmp.Compare(s.at, st.at) > 0) {
			st = s
		}
	}
	if st == nil {
		return fmt.Sprintf("pid %d is unknown to the coordinator", pid), true
	}
	_, in := slices.BinarySearch(st.parts, p)
	switch st.state {
	case model.TxnOngoing, model.TxnPrepareCommit, model.TxnPrepareAbort:
		if in {
			return "", false
		}
	}
	parts := make([]string, len(st.parts))
	for i, q := range st.parts {
		parts[i] = fmt.Sprintf("p%d", q)
	}
	return fmt.Sprintf("the coordinator holds %s (pid %d, epoch %d) in %s with partitions [%s]", st.id, st.pid, st.epoch, st.state, strings.Join(parts, " ")), true
}
