package scenarios

import "github.com/idemsim/idemsim/model"

// coordinator hands out producer ids. TODO(issue 3): replace with
// model.Coordinator.
type coordinator struct {
	next  model.ProducerID
	txnID map[string]struct {
		pid   model.ProducerID
		epoch int16
	}
}

func newCoordinator() *coordinator {
	return &coordinator{next: 1000, txnID: make(map[string]struct {
		pid   model.ProducerID
		epoch int16
	})}
}

func (c *coordinator) initProducerID(r *model.InitProducerIDRequest) *model.InitProducerIDResponse {
	if r.TransactionalID == "" {
		pid := c.next
		c.next++
		return &model.InitProducerIDResponse{CorrelationID: r.CorrelationID, PID: pid, Epoch: 0}
	}
	e, ok := c.txnID[r.TransactionalID]
	if !ok {
		e.pid, e.epoch = c.next, 0
		c.next++
	} else {
		e.epoch++
	}
	c.txnID[r.TransactionalID] = e
	return &model.InitProducerIDResponse{CorrelationID: r.CorrelationID, PID: e.pid, Epoch: e.epoch}
}
