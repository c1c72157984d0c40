package model_test

import (
	"slices"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/storage"
)

// stateOf returns a comparable copy of every producer entry.
func stateOf(p *storage.Partition) map[model.ProducerID]storage.ProducerStateEntry {
	m := map[model.ProducerID]storage.ProducerStateEntry{}
	for _, id := range p.ProducerIDs() {
		e := *p.Producer(id)
		e.Batches = append([]storage.BatchMetadata{}, e.Batches...)
		m[id] = e
	}
	return m
}

// keepOuts copies effects to keep past the node's next call: the outcomes
// and transaction results they point to, which live in the node's
// buffers, are copied too.
func keepOuts(outs []model.Out) []model.Out {
	cp := slices.Clone(outs)
	for i := range cp {
		if r := cp[i].Result; r != nil {
			v := *r
			cp[i].Result = &v
		}
		if r := cp[i].Txn; r != nil {
			v := *r
			v.Records = slices.Clone(v.Records)
			cp[i].Txn = &v
		}
	}
	return cp
}

// lastSeq returns e's newest cached batch's last sequence, or -1.
func lastSeq(e *storage.ProducerStateEntry) int32 {
	if len(e.Batches) == 0 {
		return -1
	}
	return e.Batches[len(e.Batches)-1].LastSeq
}
