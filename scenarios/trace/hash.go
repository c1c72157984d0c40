package trace

import (
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// hashID hashes a record id: its application and number.
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
	// The group membership messages, after msgOther so that the tags
	// above keep their values (and the existing traces their hashes).
	msgJoinGroup
	msgJoinGroupResp
	msgSyncGroup
	msgSyncGroupResp
	msgHeartbeat
	msgHeartbeatResp
	msgLeaveGroup
	msgLeaveGroupResp
)

// hashMsg hashes a message's type and the fields its description shows. A
// message type without a case here (one added later) hashes its
// description text, so it is still covered.
func (w *Writer) hashMsg(tr *sim.Trace, m model.Message) {
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
		if !m.GroupMetadata.None() { // a commit without group metadata hashes as before
			hashGroupMetadata(tr, m.GroupMetadata)
		}
	case *model.JoinGroupRequest:
		tr.U64(msgJoinGroup)
		tr.I64(m.CorrelationID)
		tr.Str(m.GroupID)
		tr.Str(m.MemberID)
		tr.Str(m.GroupInstanceID)
	case *model.JoinGroupResponse:
		tr.U64(msgJoinGroupResp)
		tr.I64(m.CorrelationID)
		tr.Str(m.GroupID)
		tr.I64(int64(m.Err))
		tr.I64(int64(m.GenerationID))
		tr.Str(m.MemberID)
		tr.Str(m.Leader)
		tr.I64(int64(len(m.Members)))
	case *model.SyncGroupRequest:
		tr.U64(msgSyncGroup)
		tr.I64(m.CorrelationID)
		tr.Str(m.GroupID)
		hashGroupMetadata(tr, m.GroupMetadata)
		tr.I64(int64(len(m.Assignments)))
	case *model.SyncGroupResponse:
		tr.U64(msgSyncGroupResp)
		tr.I64(m.CorrelationID)
		tr.Str(m.GroupID)
		tr.I64(int64(m.Err))
		hashParts(tr, m.Partitions)
	case *model.HeartbeatRequest:
		tr.U64(msgHeartbeat)
		tr.I64(m.CorrelationID)
		tr.Str(m.GroupID)
		hashGroupMetadata(tr, m.GroupMetadata)
	case *model.HeartbeatResponse:
		tr.U64(msgHeartbeatResp)
		tr.I64(m.CorrelationID)
		tr.Str(m.GroupID)
		tr.I64(int64(m.Err))
	case *model.LeaveGroupRequest:
		tr.U64(msgLeaveGroup)
		tr.I64(m.CorrelationID)
		tr.Str(m.GroupID)
		tr.Str(m.MemberID)
		tr.Str(m.GroupInstanceID)
	case *model.LeaveGroupResponse:
		tr.U64(msgLeaveGroupResp)
		tr.I64(m.CorrelationID)
		tr.Str(m.GroupID)
		tr.I64(int64(m.Err))
		tr.I64(int64(m.MemberErr))
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
		w.scratch = m.AppendDescription(w.scratch[:0])
		tr.Bytes(w.scratch)
	}
}

// hashGroupMetadata hashes what a request's group metadata line shows.
func hashGroupMetadata(tr *sim.Trace, m model.GroupMetadata) {
	tr.Str(m.MemberID)
	tr.Str(m.GroupInstanceID)
	tr.I64(int64(m.GenerationID))
}

// hashParts hashes a partition list: its length, then each partition.
func hashParts(tr *sim.Trace, ps []int32) {
	tr.I64(int64(len(ps)))
	for _, p := range ps {
		tr.I64(int64(p))
	}
}
