package model

// AppendResult is the outcome of appending one batch.
type AppendResult struct {
	Err ErrCode
	// FirstOffset and LastOffset are the batch's offsets: new ones for an
	// append, the original ones for a duplicate, -1 on error.
	FirstOffset, LastOffset int64
	// Duplicate is true when the batch matched a cached batch and nothing
	// was appended.
	Duplicate bool
	// Reason is a short deterministic explanation for the trace, e.g.
	// "seq 7 after last 4".
	Reason string
	// LogStartOffset is the partition's log start offset after the
	// append, which the produce response carries (LogAppendInfo's
	// logStartOffset in Kafka): 0 until retention or DeleteRecords
	// moves it.
	LogStartOffset int64
}
