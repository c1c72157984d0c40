package model

import "github.com/idemsim/idemsim/sim"

// Broker is a partition leader for a set of partitions: it turns produce
// requests into appends. Replication is not modelled: the broker is the
// only replica, so acks=1 and acks=all behave alike (the high watermark
// equals the log end).
type Broker struct {
	partitions []*Partition // indexed by partition id
}

// NewBroker returns a broker leading partitions 0..n-1, each with cfg.
func NewBroker(n int, cfg PartitionConfig) *Broker {
	b := &Broker{partitions: make([]*Partition, n)}
	for i := range b.partitions {
		b.partitions[i] = NewPartition(int32(i), cfg)
	}
	return b
}

// Partitions returns the broker's partitions, indexed by id.
func (b *Broker) Partitions() []*Partition { return b.partitions }

// Partition returns partition id, or nil if the broker does not lead it.
func (b *Broker) Partition(id int32) *Partition {
	if id < 0 || int(id) >= len(b.partitions) {
		return nil
	}
	return b.partitions[id]
}

// HandleProduce appends every batch of req and returns the response (nil
// for acks=0) and the per-batch append results, in request order, for the
// trace and the checkers.
func (b *Broker) HandleProduce(now sim.Time, req *ProduceRequest) (*ProduceResponse, []AppendResult) {
	results := make([]AppendResult, len(req.Batches))
	resp := &ProduceResponse{CorrelationID: req.CorrelationID, Partitions: make([]PartitionResponse, len(req.Batches))}
	for i := range req.Batches {
		bt := &req.Batches[i]
		p := b.Partition(bt.Partition)
		var r AppendResult
		if p == nil {
			r = AppendResult{Err: ErrNotLeaderOrFollower, FirstOffset: -1, LastOffset: -1, Reason: "not leader"}
		} else {
			r = p.Append(now, *bt)
		}
		results[i] = r
		resp.Partitions[i] = PartitionResponse{Partition: bt.Partition, Err: r.Err, BaseOffset: r.FirstOffset}
	}
	if req.Acks == 0 {
		return nil, results
	}
	return resp, results
}
