package storage

import "github.com/idemsim/idemsim/model"

// ActiveProducers appends the partition's producer-state entries to dst,
// by increasing producer id, as DescribeProducers reports them (KIP-664,
// Kafka 3.0.0): UnifiedLog.activeProducers
// (core/src/main/scala/kafka/log/UnifiedLog.scala) maps each entry of
// ProducerStateManager.activeProducers to its producer id, epoch, last
// sequence, last timestamp, coordinator epoch and current transaction
// start offset (-1 without an open transaction). Entries the expiry
// removed are gone, as in Kafka; an entry created empty (a marker for an
// unknown producer id) is listed with its epoch and last sequence -1.
func (p *Partition) ActiveProducers(dst []model.ProducerState) []model.ProducerState {
	for _, pid := range p.ProducerIDs() {
		e := p.producers[pid]
		dst = append(dst, model.ProducerState{PID: pid, Epoch: e.Epoch, LastSequence: e.lastSeq(), LastTimestamp: e.LastTimestamp,
			CoordinatorEpoch: e.CoordinatorEpoch, TxnStartOffset: e.TxnFirstOffset})
	}
	return dst
}
