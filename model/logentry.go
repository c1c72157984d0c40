package model

import "github.com/idemsim/idemsim/sim"

// LogEntry is one batch in a partition's log: data, or a transaction
// marker. The fields are ordered so that the struct has little padding (88
// bytes): a log keeps one per appended batch, and so do the observers.
type LogEntry struct {
	FirstOffset, LastOffset int64
	// Batch is the appended data batch (for a marker: its PID and Epoch).
	Batch Batch
	// AppendedAt is the simulated time of the append.
	AppendedAt sim.Time
	// CoordinatorEpoch is the coordinator epoch a marker carried; -1 for
	// data. Kept so that a rebuild (UnifiedLog.rebuildProducerState) can
	// replay markers.
	CoordinatorEpoch int32
	// Marker is MarkerNone for data, else the control record type.
	Marker MarkerType
}
