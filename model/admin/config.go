package admin

import (
	"time"

	"github.com/idemsim/idemsim/model"
)

// Config is the admin client's configuration.
type Config struct {
	// Leaders is the leader broker index of every partition as the
	// bootstrap metadata gives it (-1: unknown); Brokers the number of
	// brokers.
	Leaders []int32
	Brokers int
	// RequestTimeout is request.timeout.ms (default 30000 ms);
	// RetryBackoff retry.backoff.ms (default 100 ms); APITimeout
	// default.api.timeout.ms (default 60000 ms), a command's deadline.
	RequestTimeout time.Duration
	RetryBackoff   time.Duration
	APITimeout     time.Duration
}

// AbortSpec is an operator's abort command for one partition. With PID
// set it is "kafka-transactions.sh abort --producer-id --producer-epoch
// --coordinator-epoch"; else with StartOffset >= 0 "abort
// --start-offset"; else "find-hanging --partition" followed by an abort
// of each hanging transaction it finds.
type AbortSpec struct {
	Partition int32
	// PID, Epoch and CoordinatorEpoch name the transaction's producer
	// (model.NoProducerID: look it up).
	PID              model.ProducerID
	Epoch            int16
	CoordinatorEpoch int32
	// StartOffset is the open transaction's first offset, -1 for none.
	StartOffset int64
}

// mode returns the command's form, as its trace lines name it.
func (s *AbortSpec) mode() string {
	switch {
	case s.PID != model.NoProducerID:
		return "abort"
	case s.StartOffset >= 0:
		return "abort --start-offset"
	}
	return "find-hanging"
}
