package broker

import (
	"reflect"
	"slices"
	"testing"

	"github.com/idemsim/idemsim/model"
)

// outsSnapshot copies outs deeply enough to tell whether anything they
// hold or point to (observations, expired batches) changed.
type outSnap struct {
	o   model.Out
	obs model.Obs
	b   model.Batch
	res model.Outcome
	txn model.TxnResult
}

func snapOuts(outs []model.Out) []outSnap {
	s := make([]outSnap, len(outs))
	for i, o := range outs {
		s[i].o = o
		if o.Obs != nil {
			s[i].obs = *o.Obs
		}
		if o.Batch != nil {
			s[i].b = *o.Batch
		}
		if o.Result != nil {
			s[i].res = *o.Result
		}
		if o.Txn != nil {
			s[i].txn = *o.Txn
			s[i].txn.Records = slices.Clone(o.Txn.Records)
		}
	}
	return s
}

// TestHoldBroker: a broker's held effects and the observations they
// point to do not change while it handles more requests.
func TestHoldBroker(t *testing.T) {
	r := newVerifyRun()
	b := r.b
	produce := func(n int64) []model.Out {
		return b.Step(ms(n), model.Peer{Node: 9, ReqNo: n}, &model.ProduceRequest{CorrelationID: n, Acks: -1, TimeoutMs: 1000,
			Batches: []model.Batch{{Partition: 0, PID: model.NoProducerID, Epoch: model.NoEpoch, FirstSeq: model.NoSequence, LastSeq: model.NoSequence,
				Records: []model.Record{{ID: model.RecordID{App: 0, N: n}, Partition: 0}}}}})
	}
	outs1 := produce(1)
	var hasObs bool
	for _, o := range outs1 {
		hasObs = hasObs || o.Obs != nil
	}
	if !hasObs {
		t.Fatal("no observation among the effects")
	}
	if !b.HoldEffects(outs1) {
		t.Fatal("the last call's effects were not held")
	}
	snap := snapOuts(outs1)
	for n := int64(2); n < 30; n++ {
		outs := produce(n)
		if n%3 == 0 && b.HoldEffects(outs) {
			b.ReleaseEffects()
		}
	}
	if !reflect.DeepEqual(snapOuts(outs1), snap) {
		t.Fatal("held effects or their observations changed under later calls")
	}
	b.ReleaseEffects()
}
