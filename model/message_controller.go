package model

import "strconv"

// Messages between brokers and the KRaft controller. The controller is
// one node, reached at [DestController].

// DestController is the destination of requests to the controller.
const DestController int32 = -3

// BrokerHeartbeatRequest is a broker's heartbeat (every
// broker.heartbeat.interval.ms, 2000).
type BrokerHeartbeatRequest struct {
	BrokerID int32
	// MetadataOffset is the offset of the last metadata the broker
	// applied (currentMetadataOffset); the controller sends a broker
	// behind it everything it missed, standing in for the broker's fetch
	// of the metadata log.
	MetadataOffset int64
	// UncleanShutdown: the broker restarted after an unclean shutdown and
	// the controller has not answered a heartbeat since (Kafka's broker
	// registration after an unclean shutdown); the controller removes it
	// from every ELR (KIP-966), since its log may have lost records.
	UncleanShutdown bool
	// WantShutDown: the broker is in controlled shutdown and asks the
	// controller to move its leaderships away (BrokerHeartbeat's
	// WantShutDown, BrokerLifecycleManager's PENDING_CONTROLLED_SHUTDOWN).
	WantShutDown bool
}

// AppendDescription appends "Heartbeat b1".
func (r *BrokerHeartbeatRequest) AppendDescription(b []byte) []byte {
	b = append(b, "Heartbeat b"...)
	return strconv.AppendInt(b, int64(r.BrokerID), 10)
}

// BrokerHeartbeatResponse answers a heartbeat.
type BrokerHeartbeatResponse struct {
	BrokerID int32
	// Fenced is true while the controller counts the broker fenced.
	Fenced bool
	// ShouldShutDown answers a WantShutDown heartbeat: the broker leads
	// nothing any more and the other active brokers have applied the
	// change, so it may stop (BrokerHeartbeatManager's SHUTDOWN_NOW).
	ShouldShutDown bool
}

// AppendDescription appends "HeartbeatResp b1 fenced=false".
func (r *BrokerHeartbeatResponse) AppendDescription(b []byte) []byte {
	b = append(b, "HeartbeatResp b"...)
	b = strconv.AppendInt(b, int64(r.BrokerID), 10)
	b = append(b, " fenced="...)
	return strconv.AppendBool(b, r.Fenced)
}

// AlterPartitionRequest is a leader's ISR change proposal
// (P#maybeShrinkIsr:1253, P#maybeExpandIsr:1030; P#prepareIsrShrink:1806,
// P#prepareIsrExpand).
type AlterPartitionRequest struct {
	// BrokerID is the leader proposing the change.
	BrokerID       int32
	Partition      int32
	LeaderEpoch    int32
	PartitionEpoch int32
	// NewISR is the proposed ISR.
	NewISR []int32
}

// AppendDescription appends "AlterPartition b1 p0 e=0 pe=2 isr=[1,2]".
func (r *AlterPartitionRequest) AppendDescription(b []byte) []byte {
	b = append(b, "AlterPartition b"...)
	b = strconv.AppendInt(b, int64(r.BrokerID), 10)
	b = append(b, " p"...)
	b = strconv.AppendInt(b, int64(r.Partition), 10)
	b = append(b, " e="...)
	b = strconv.AppendInt(b, int64(r.LeaderEpoch), 10)
	b = append(b, " pe="...)
	b = strconv.AppendInt(b, int64(r.PartitionEpoch), 10)
	b = append(b, " isr="...)
	return appendIDs(b, r.NewISR)
}

// AlterPartitionResponse answers an [AlterPartitionRequest]: on success the
// partition's registration after the change.
type AlterPartitionResponse struct {
	Partition int32
	Err       ErrCode
	// State is the partition's registration (valid when Err is NONE).
	State PartitionState
}

// AppendDescription appends "AlterPartitionResp p0 NONE leader=1 e=0 pe=3 isr=[1,2]".
func (r *AlterPartitionResponse) AppendDescription(b []byte) []byte {
	b = append(b, "AlterPartitionResp p"...)
	b = strconv.AppendInt(b, int64(r.Partition), 10)
	b = append(b, ' ')
	b = append(b, r.Err.String()...)
	if r.Err == ErrNone {
		b = append(b, ' ')
		b = r.State.appendFields(b)
	}
	return b
}

// PartitionState is the controller's registration of a partition (PREG,
// metadata/src/main/java/org/apache/kafka/metadata/PartitionRegistration.java),
// as published in metadata.
type PartitionState struct {
	Partition int32
	// Replicas is the assignment; Replicas[0] is the preferred leader.
	Replicas []int32
	ISR      []int32
	// Leader is the leader's broker index, or -1 for none.
	Leader         int32
	LeaderEpoch    int32
	PartitionEpoch int32
	// Recovering is leaderRecoveryState RECOVERING, set by an unclean
	// election (PartitionChangeBuilder#tryElection).
	Recovering bool
	// ELR are the eligible leader replicas (KIP-966): replicas removed
	// from the ISR while it was below min.insync.replicas, which hold
	// every committed record (the high watermark does not move below
	// min.insync.replicas) and may be elected cleanly when no ISR member
	// can lead. Empty without ELR, and whenever the ISR is at least
	// min.insync.replicas.
	ELR []int32
}

func (s *PartitionState) appendFields(b []byte) []byte {
	b = append(b, "leader="...)
	b = strconv.AppendInt(b, int64(s.Leader), 10)
	b = append(b, " e="...)
	b = strconv.AppendInt(b, int64(s.LeaderEpoch), 10)
	b = append(b, " pe="...)
	b = strconv.AppendInt(b, int64(s.PartitionEpoch), 10)
	b = append(b, " isr="...)
	b = appendIDs(b, s.ISR)
	if s.Recovering {
		b = append(b, " recovering"...)
	}
	return b
}

// Clone returns a copy sharing no slices with s.
func (s PartitionState) Clone() PartitionState {
	s.Replicas = append([]int32(nil), s.Replicas...)
	s.ISR = append([]int32(nil), s.ISR...)
	if s.ELR != nil {
		s.ELR = append([]int32(nil), s.ELR...)
	}
	return s
}

// MetadataUpdate is the controller's publication of partition changes
// (PartitionChangeRecords replayed by brokers) and of the fenced
// brokers. Brokers serve clients' Metadata from what they applied;
// the world decides when (and whether) each broker receives it.
type MetadataUpdate struct {
	// Partitions are the changed partitions, in partition order; empty
	// when only the fenced set changed (a broker registration change).
	Partitions []PartitionState
	// Fenced lists the fenced brokers, in increasing order.
	Fenced []int32
	// ShuttingDown lists the brokers in controlled shutdown, in
	// increasing order (BrokerRegistration.inControlledShutdown): like
	// fenced ones, they may not join an ISR (P#isReplicaIsrEligible).
	ShuttingDown []int32
	// Offset numbers the controller's publications (the metadata log's
	// offset); a full update to a broker that missed some carries the
	// latest.
	Offset int64
	// CoordLeaders are the leaders (broker indexes, -1 for none) of the
	// coordinators' internal partitions, by [CoordLogIndex]: where the
	// transaction coordinator and the group coordinator live. Every
	// publication carries them; nil when the controller hosts none
	// (model/controller/coordparts.go).
	CoordLeaders []int32
}

// TxnStatePartition stands for the transaction coordinator's
// __transaction_state partition where an operator's request names
// partitions (elect-preferred); [OffsetsPartition] stands for the group
// coordinator's __consumer_offsets partition there too. The model gives
// each coordinator's log one partition.
const TxnStatePartition int32 = -2

// CoordPartitions is how many internal partitions there are: the
// transaction coordinator's and the group coordinator's.
const CoordPartitions = 2

// CoordLogIndex returns internal partition id's index in
// [MetadataUpdate.CoordLeaders] (0 for [TxnStatePartition], 1 for
// [OffsetsPartition]), -1 for a data partition.
func CoordLogIndex(id int32) int {
	switch id {
	case TxnStatePartition:
		return 0
	case OffsetsPartition:
		return 1
	}
	return -1
}

// CoordLogID returns the internal partition at index k of
// [MetadataUpdate.CoordLeaders].
func CoordLogID(k int) int32 {
	if k == 1 {
		return OffsetsPartition
	}
	return TxnStatePartition
}

// CoordLogName returns internal partition id's topic name.
func CoordLogName(id int32) string {
	if id == OffsetsPartition {
		return "__consumer_offsets"
	}
	return "__transaction_state"
}

// AppendDescription appends "Metadata {p0 leader=2 e=1 pe=3 isr=[2,3]} fenced=[1]".
func (r *MetadataUpdate) AppendDescription(b []byte) []byte {
	b = append(b, "Metadata"...)
	for i := range r.Partitions {
		b = append(b, " {p"...)
		b = strconv.AppendInt(b, int64(r.Partitions[i].Partition), 10)
		b = append(b, ' ')
		b = r.Partitions[i].appendFields(b)
		b = append(b, '}')
	}
	b = append(b, " fenced="...)
	return appendIDs(b, r.Fenced)
}

func appendIDs(b []byte, ids []int32) []byte {
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return append(b, ']')
}
