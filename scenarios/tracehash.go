package scenarios

import (
	"strconv"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// hashObs feeds o's trace entry to the hash (scheme sim.HashScheme): the
// kind and time, then the fields its trace line shows, as fixed-width
// words (nodes by index, which the topology names), nothing formatted.
// Every kind with a trace line has a case here and in format.
func (t *traceWriter) hashObs(o *model.Obs) {
	tr := t.Trace
	tr.Entry(uint64(o.Kind), o.At)
	switch o.Kind {
	case model.ObsRunStart, model.ObsRunEnd, model.ObsFault:
		tr.Str(o.Text)
	case model.ObsStart, model.ObsTakeover:
		tr.I64(int64(o.Node))
		tr.I64(int64(o.App))
	case model.ObsAppSend:
		tr.I64(int64(o.Node))
		hashID(tr, o.Record.ID)
		tr.I64(int64(o.Record.Partition))
	case model.ObsAppResend:
		tr.I64(int64(o.Node))
		hashID(tr, o.Record.ID)
		tr.Bool(o.Flag)
		if o.Flag {
			tr.I64(int64(o.Record.Partition))
		}
	case model.ObsAppIdle:
		tr.I64(int64(o.Node))
		tr.I64(int64(o.Dur))
	case model.ObsOutcome:
		tr.I64(int64(o.Node))
		oc := &o.Outcome
		tr.I64(int64(oc.Err))
		hashID(tr, oc.ID)
		if oc.Err == model.ErrNone {
			tr.I64(oc.Offset)
		}
	case model.ObsNote:
		tr.I64(int64(o.Node))
		if expiredNote(o) {
			// Hashed as its text would be (Bytes hashes as Str).
			t.scratch = model.ExpiredNote(t.scratch[:0], &o.Batch)
			tr.Bytes(t.scratch)
		} else {
			tr.Str(o.Text)
		}
	case model.ObsTxnOutcome:
		tr.I64(int64(o.Node))
		tr.Str(o.Text)
		tr.I64(o.N)
		tr.I64(int64(o.Err))
	case model.ObsSent:
		tr.I64(int64(o.Node))
		t.hashMsg(o.Msg)
		tr.I64(int64(o.Peer))
		tr.Str(o.Fate)
		if o.Fate != "" {
			tr.Bool(o.Forced)
			if o.Forced {
				tr.Bool(o.Flag)
				tr.I64(o.N)
				tr.U64(uint64(o.ConnGen))
			}
		} else {
			tr.I64(int64(o.Dur))
		}
	case model.ObsDup:
		tr.I64(int64(o.Node))
		t.hashMsg(o.Msg)
		tr.I64(int64(o.Peer))
		tr.I64(int64(o.Until))
	case model.ObsDelivered:
		tr.I64(int64(o.Node))
		t.hashMsg(o.Msg)
	case model.ObsLost:
		tr.I64(int64(o.Node))
		t.hashMsg(o.Msg)
		tr.Str(o.Fate)
	case model.ObsVerdict:
		tr.I64(int64(o.Node))
		r := &o.Result
		tr.Bool(r.Duplicate)
		tr.I64(int64(r.Err))
		hashBatch(tr, &o.Batch)
		if r.Err != model.ErrNone {
			tr.Str(r.Reason)
		} else {
			tr.I64(r.FirstOffset)
			tr.I64(r.LastOffset)
		}
	case model.ObsMarker:
		tr.I64(int64(o.Node))
		tr.U64(uint64(o.Marker))
		tr.I64(int64(o.Partition))
		tr.I64(int64(o.PID))
		tr.I64(int64(o.Epoch))
		tr.I64(int64(o.Err))
	case model.ObsEpoch:
		tr.I64(int64(o.Node))
		tr.I64(int64(o.Err))
		if o.Err == model.ErrNone {
			tr.I64(int64(o.PID))
			tr.I64(int64(o.Epoch))
		}
		tr.Str(o.Text)
	case model.ObsTxnOp:
		tr.I64(int64(o.Node))
		t.hashMsg(o.Msg)
		tr.I64(int64(o.Err))
	case model.ObsTxnTimeouts:
		tr.I64(int64(o.Node))
		tr.I64(int64(o.Until))
	case model.ObsExpired:
		tr.I64(int64(o.Node))
		tr.I64(int64(o.Partition))
		tr.I64(int64(o.PID))
		tr.I64(int64(o.Until))
	case model.ObsHold:
		tr.I64(int64(o.Node))
		tr.Str(o.Text)
		tr.Str(o.Fate)
	case model.ObsResume, model.ObsCrash, model.ObsAppResume:
		tr.I64(int64(o.Node))
		tr.I64(o.N)
	case model.ObsRestart, model.ObsMetadataFlap:
		tr.I64(int64(o.Node))
	case model.ObsPlanEnd:
	case model.ObsDisconnected:
		tr.I64(int64(o.Node))
		tr.I64(int64(o.Peer))
		tr.U64(uint64(o.ConnGen))
	case model.ObsTxnState:
		tr.I64(int64(o.Node))
		tr.Str(o.Text)
		tr.I64(int64(o.PID))
		tr.I64(int64(o.Epoch))
		tr.I64(o.N)
		hashParts(tr, o.Parts)
		tr.Bool(o.Flag)
	case model.ObsOffsets:
		tr.I64(int64(o.Node))
		tr.Str(o.Text)
		tr.Str(o.Group)
		tr.I64(int64(o.PID))
		tr.I64(int64(o.Epoch))
		tr.I64(o.N)
		tr.I64(int64(o.Err))
	case model.ObsFinalLog:
		tr.I64(int64(o.Partition))
		tr.I64(int64(o.Node))
		if o.Node >= 0 {
			tr.I64(o.Result.LastOffset)
		}
	default:
		panic("scenarios: no trace line for observation kind " + strconv.Itoa(int(o.Kind)))
	}
}

func hashID(tr *sim.Trace, id model.RecordID) {
	tr.I64(int64(id.App))
	tr.I64(id.N)
}

// hashBatch hashes what a batch's description shows: partition, producer
// id, epoch, sequence range, transactional bit, record count and the first
// and last record ids.
func hashBatch(tr *sim.Trace, b *model.Batch) {
	tr.I64(int64(b.Partition))
	tr.I64(int64(b.PID))
	tr.I64(int64(b.Epoch))
	tr.I64(int64(b.FirstSeq))
	tr.I64(int64(b.LastSeq))
	tr.Bool(b.Transactional)
	tr.I64(int64(len(b.Records)))
	if n := len(b.Records); n > 0 {
		hashID(tr, b.Records[0].ID)
		hashID(tr, b.Records[n-1].ID)
	}
}

// Message tags in the hash, one per message type.
const (
	msgProduce uint64 = iota + 1
	msgProduceResp
	msgInitPID
	msgInitPIDResp
	msgAddPartitions
	msgEndTxn
	msgTxnResp
	msgVerify
	msgVerifyResp
	msgMarkers
	msgMarkersResp
	msgAddOffsets
	msgTxnOffsetCommit
	msgOffsetFetch
	msgOffsetFetchResp
	msgOther
)

// hashMsg hashes a message's type and the fields its description shows. A
// message type without a case here (one added later) hashes its
// description text, so it is still covered.
func (t *traceWriter) hashMsg(m model.Message) {
	tr := t.Trace
	switch m := m.(type) {
	case *model.ProduceRequest:
		tr.U64(msgProduce)
		tr.I64(m.CorrelationID)
		tr.I64(int64(len(m.Batches)))
		for i := range m.Batches {
			hashBatch(tr, &m.Batches[i])
		}
	case *model.ProduceResponse:
		tr.U64(msgProduceResp)
		tr.I64(m.CorrelationID)
		tr.I64(int64(len(m.Partitions)))
		for _, p := range m.Partitions {
			tr.I64(int64(p.Partition))
			tr.I64(int64(p.Err))
			if p.Err == model.ErrNone {
				tr.I64(p.BaseOffset)
			}
		}
	case *model.InitProducerIDRequest:
		tr.U64(msgInitPID)
		tr.I64(m.CorrelationID)
		tr.Str(m.TransactionalID)
		tr.I64(int64(m.ExpectedPID))
		if m.ExpectedPID != model.NoProducerID {
			tr.I64(int64(m.ExpectedEpoch))
		}
	case *model.InitProducerIDResponse:
		tr.U64(msgInitPIDResp)
		tr.I64(m.CorrelationID)
		tr.I64(int64(m.Err))
		if m.Err == model.ErrNone {
			tr.I64(int64(m.PID))
			tr.I64(int64(m.Epoch))
		}
	case *model.AddPartitionsToTxnRequest:
		tr.U64(msgAddPartitions)
		tr.I64(m.CorrelationID)
		tr.Str(m.TransactionalID)
		tr.I64(int64(m.PID))
		tr.I64(int64(m.Epoch))
		hashParts(tr, m.Partitions)
	case *model.EndTxnRequest:
		tr.U64(msgEndTxn)
		tr.I64(m.CorrelationID)
		tr.Str(m.TransactionalID)
		tr.I64(int64(m.PID))
		tr.I64(int64(m.Epoch))
		tr.Bool(m.Commit)
	case *model.TxnResponse:
		tr.U64(msgTxnResp)
		tr.Str(m.Op)
		tr.I64(m.CorrelationID)
		tr.I64(int64(m.Err))
	case *model.VerifyPartitionsRequest:
		tr.U64(msgVerify)
		tr.Bool(m.Add) // the line says AddPartitions or VerifyPartitions
		tr.Str(m.TransactionalID)
		tr.I64(int64(m.PID))
		tr.I64(int64(m.Epoch))
		hashParts(tr, m.Partitions)
	case *model.VerifyPartitionsResponse:
		tr.U64(msgVerifyResp)
		hashParts(tr, m.Partitions)
		for i := range m.Partitions {
			tr.I64(int64(m.Errs[i]))
		}
	case *model.WriteTxnMarkersRequest:
		tr.U64(msgMarkers)
		tr.Str(m.TransactionalID)
		tr.I64(int64(len(m.Markers)))
	case *model.WriteTxnMarkersResponse:
		tr.U64(msgMarkersResp)
		tr.Str(m.TransactionalID)
	case *model.AddOffsetsToTxnRequest:
		tr.U64(msgAddOffsets)
		tr.I64(m.CorrelationID)
		tr.Str(m.TransactionalID)
		tr.I64(int64(m.PID))
		tr.I64(int64(m.Epoch))
		tr.Str(m.GroupID)
	case *model.TxnOffsetCommitRequest:
		tr.U64(msgTxnOffsetCommit)
		tr.I64(m.CorrelationID)
		tr.Str(m.GroupID)
		tr.I64(int64(m.PID))
		tr.I64(int64(m.Epoch))
		tr.I64(m.Offset)
	case *model.OffsetFetchRequest:
		tr.U64(msgOffsetFetch)
		tr.Str(m.GroupID)
	case *model.OffsetFetchResponse:
		tr.U64(msgOffsetFetchResp)
		tr.Str(m.GroupID)
		tr.I64(int64(m.Err))
		tr.I64(m.Offset)
	default:
		tr.U64(msgOther)
		t.scratch = m.AppendDescription(t.scratch[:0])
		tr.Bytes(t.scratch)
	}
}

func hashParts(tr *sim.Trace, ps []int32) {
	tr.I64(int64(len(ps)))
	for _, p := range ps {
		tr.I64(int64(p))
	}
}

// TraceHashScheme is the scheme tag every trace hash carries ("v2").
const TraceHashScheme = sim.HashScheme

// ParseTraceHash reads a trace hash as [Result.TraceHash] has it ("v2:"
// and 16 hex digits); a hash of another scheme, such as an untagged one
// from an older version, is an error that says so.
func ParseTraceHash(s string) (uint64, error) { return sim.ParseHash(s) }

// FormatTraceHash tags a 64-bit hash value with the trace hash scheme, as
// [ParseTraceHash] reads it.
func FormatTraceHash(h uint64) string { return sim.HashString(h) }
