package model

import (
	"strconv"
	"time"
)

// Classic consumer-group membership (the group coordinator's JoinGroup,
// SyncGroup, Heartbeat and LeaveGroup; apache/kafka 4.0,
// clients/src/main/resources/common/message/JoinGroupRequest.json and its
// siblings). A member joins with an empty member id and is given one
// (MEMBER_ID_REQUIRED), joins again with it, and waits until the
// rebalance's join phase completes; the leader's JoinGroup answer lists
// the members, the leader computes the assignment and sends it in its
// SyncGroup; every member's SyncGroup answer carries its own partitions.
// Heartbeats keep a member alive (session.timeout.ms) and tell it of a
// rebalance (REBALANCE_IN_PROGRESS). The group's input is one topic: an
// assignment is a list of that topic's partitions.

// The group coordinator's membership errors (Kafka's Errors.java values;
// their names are in errcode.go's errNames).
const (
	ErrCoordinatorNotAvailable   ErrCode = 15
	ErrIllegalGeneration         ErrCode = 22
	ErrInconsistentGroupProtocol ErrCode = 23
	ErrUnknownMemberID           ErrCode = 25
	ErrInvalidSessionTimeout     ErrCode = 26
	ErrRebalanceInProgress       ErrCode = 27
	ErrFencedInstanceID          ErrCode = 82
	ErrMemberIDRequired          ErrCode = 79
)

// NoGeneration is the generation id of a request that carries no group
// metadata: a simple consumer's or the deprecated
// sendOffsetsToTransaction(offsets, groupId)'s (ConsumerGroupMetadata's
// default, generation -1, empty member id, no group instance id).
const NoGeneration int32 = -1

// GroupMetadata is what a request says of its sender's group membership
// (KafkaConsumer.groupMetadata(), carried by OffsetCommit and by
// TxnOffsetCommit through sendOffsetsToTransaction(offsets,
// groupMetadata)). Its zero value is "no group metadata": generation -1,
// empty member id, no group instance id. Kafka's first generation of a
// group is 1 (ClassicGroup.initNextGeneration increments from 0), so no
// member ever holds generation 0 and the zero value loses nothing.
type GroupMetadata struct {
	MemberID string
	// GroupInstanceID is the static member's group.instance.id, "" for
	// none (Kafka's null).
	GroupInstanceID string
	// GenerationID is the member's generation; 0 with an empty MemberID
	// and GroupInstanceID means NoGeneration.
	GenerationID int32
}

// None reports whether m carries no group metadata.
func (m GroupMetadata) None() bool {
	return m.MemberID == "" && m.GroupInstanceID == "" && (m.GenerationID == 0 || m.GenerationID == NoGeneration)
}

// Generation returns m's generation id, NoGeneration for the zero value.
func (m GroupMetadata) Generation() int32 {
	if m.None() {
		return NoGeneration
	}
	return m.GenerationID
}

// appendGroupHead appends a group message's head, "JoinGroup#3
// group=app-0".
func appendGroupHead(b []byte, name string, corr int64, group string) []byte {
	b = append(b, name...)
	b = strconv.AppendInt(b, corr, 10)
	b = append(b, " group="...)
	return append(b, group...)
}

// appendGroupAnswer appends a group answer's head, "JoinGroupResp#3
// group=app-0 NONE".
func appendGroupAnswer(b []byte, name string, corr int64, group string, err ErrCode) []byte {
	b = appendGroupHead(b, name, corr, group)
	b = append(b, ' ')
	return append(b, err.String()...)
}

// appendMember appends " member=c-1", and " instance=i" for a static
// member.
func appendMember(b []byte, member, instance string) []byte {
	b = append(b, " member="...)
	b = append(b, member...)
	if instance != "" {
		b = append(b, " instance="...)
		b = append(b, instance...)
	}
	return b
}

// appendGroupMetadata appends " member=c-1 instance=i gen=3", nothing for
// no metadata.
func appendGroupMetadata(b []byte, m GroupMetadata) []byte {
	if m.None() {
		return b
	}
	b = appendMember(b, m.MemberID, m.GroupInstanceID)
	b = append(b, " gen="...)
	return strconv.AppendInt(b, int64(m.GenerationID), 10)
}

// JoinGroupRequest is Kafka's JoinGroupRequest (v4 and later: a member
// id is required, KIP-394) of the consumer protocol type.
type JoinGroupRequest struct {
	CorrelationID int64
	GroupID       string
	// MemberID is "" on a member's first join.
	MemberID string
	// GroupInstanceID is group.instance.id, "" for a dynamic member.
	GroupInstanceID string
	// ClientID prefixes the member id the coordinator gives.
	ClientID string
	// Protocols are the member's assignor names (partition.assignment.strategy),
	// in preference order: "range".
	Protocols []string
	// Topics is the member's subscription (its protocol metadata).
	Topics []string
	// SessionTimeout is session.timeout.ms; RebalanceTimeout is
	// max.poll.interval.ms.
	SessionTimeout   time.Duration
	RebalanceTimeout time.Duration
	// Coord is simulation metadata, never on the wire: the broker the
	// consumer sent the request to, as [CoordTag] of its FindCoordinator
	// answer (0: the coordinator's own node, or no lookup).
	Coord int32
}

// AppendDescription appends "JoinGroup#3 group=app-0 member=c-1 instance=i protocols=range".
func (r *JoinGroupRequest) AppendDescription(b []byte) []byte {
	b = appendGroupHead(b, "JoinGroup#", r.CorrelationID, r.GroupID)
	b = appendMember(b, r.MemberID, r.GroupInstanceID)
	b = append(b, " protocols="...)
	for i, p := range r.Protocols {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p...)
	}
	return b
}

// JoinGroupMember is one member in the leader's JoinGroup answer.
type JoinGroupMember struct {
	MemberID        string
	GroupInstanceID string
	// Topics is the member's subscription.
	Topics []string
}

// JoinGroupResponse answers a [JoinGroupRequest] once the rebalance's
// join phase completes (or at once with an error, or with
// MEMBER_ID_REQUIRED and the member's new id).
type JoinGroupResponse struct {
	CorrelationID int64
	GroupID       string
	Err           ErrCode
	GenerationID  int32
	// ProtocolName is the assignor the group selected.
	ProtocolName string
	Leader       string
	MemberID     string
	// Members is the group's members, sorted by member id, for the leader
	// only; empty for the others.
	Members []JoinGroupMember
	// SkipAssignment tells a static leader that rejoined a Stable group
	// to keep the current assignment (JoinGroup v9+, KIP-814).
	SkipAssignment bool
}

// AppendDescription appends "JoinGroupResp#3 group=app-0 NONE gen=1 member=c-1 leader=c-1 protocol=range members=2".
func (r *JoinGroupResponse) AppendDescription(b []byte) []byte {
	b = appendGroupAnswer(b, "JoinGroupResp#", r.CorrelationID, r.GroupID, r.Err)
	b = append(b, " gen="...)
	b = strconv.AppendInt(b, int64(r.GenerationID), 10)
	b = append(b, " member="...)
	b = append(b, r.MemberID...)
	b = append(b, " leader="...)
	b = append(b, r.Leader...)
	if r.ProtocolName != "" {
		b = append(b, " protocol="...)
		b = append(b, r.ProtocolName...)
	}
	if len(r.Members) > 0 {
		b = append(b, " members="...)
		b = strconv.AppendInt(b, int64(len(r.Members)), 10)
	}
	if r.SkipAssignment {
		b = append(b, " skip-assignment"...)
	}
	return b
}

// GroupAssignment is one member's partitions in the leader's SyncGroup.
type GroupAssignment struct {
	MemberID   string
	Partitions []int32
}

// SyncGroupRequest is Kafka's SyncGroupRequest: every member sends it
// after its JoinGroup answer; the leader's carries the assignment.
type SyncGroupRequest struct {
	CorrelationID int64
	GroupID       string
	GroupMetadata
	ProtocolName string
	// Assignments is the leader's assignment, empty for the others.
	Assignments []GroupAssignment
	// Coord is simulation metadata, never on the wire: the broker the
	// consumer sent the request to, as [CoordTag] of its FindCoordinator
	// answer (0: the coordinator's own node, or no lookup).
	Coord int32
}

// AppendDescription appends "SyncGroup#4 group=app-0 member=c-1 gen=1 assignments=2".
func (r *SyncGroupRequest) AppendDescription(b []byte) []byte {
	b = appendGroupHead(b, "SyncGroup#", r.CorrelationID, r.GroupID)
	b = appendGroupMetadata(b, r.GroupMetadata)
	if len(r.Assignments) > 0 {
		b = append(b, " assignments="...)
		b = strconv.AppendInt(b, int64(len(r.Assignments)), 10)
	}
	return b
}

// SyncGroupResponse answers a [SyncGroupRequest] with the member's
// partitions, once the leader's assignment is in.
type SyncGroupResponse struct {
	CorrelationID int64
	GroupID       string
	Err           ErrCode
	ProtocolName  string
	Partitions    []int32
}

// AppendDescription appends "SyncGroupResp#4 group=app-0 NONE p=0,1".
func (r *SyncGroupResponse) AppendDescription(b []byte) []byte {
	b = appendGroupAnswer(b, "SyncGroupResp#", r.CorrelationID, r.GroupID, r.Err)
	b = append(b, " p="...)
	for i, p := range r.Partitions {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(p), 10)
	}
	return b
}

// HeartbeatRequest is Kafka's HeartbeatRequest.
type HeartbeatRequest struct {
	CorrelationID int64
	GroupID       string
	GroupMetadata
	// Coord is simulation metadata, never on the wire: the broker the
	// consumer sent the request to, as [CoordTag] of its FindCoordinator
	// answer (0: the coordinator's own node, or no lookup).
	Coord int32
}

// AppendDescription appends "Heartbeat#5 group=app-0 member=c-1 gen=1".
func (r *HeartbeatRequest) AppendDescription(b []byte) []byte {
	b = appendGroupHead(b, "Heartbeat#", r.CorrelationID, r.GroupID)
	return appendGroupMetadata(b, r.GroupMetadata)
}

// HeartbeatResponse answers a [HeartbeatRequest].
type HeartbeatResponse struct {
	CorrelationID int64
	GroupID       string
	Err           ErrCode
}

// AppendDescription appends "HeartbeatResp#5 group=app-0 REBALANCE_IN_PROGRESS".
func (r *HeartbeatResponse) AppendDescription(b []byte) []byte {
	return appendGroupAnswer(b, "HeartbeatResp#", r.CorrelationID, r.GroupID, r.Err)
}

// LeaveGroupRequest is Kafka's LeaveGroupRequest for one member (v3 and
// later carry a list; a consumer sends its own).
type LeaveGroupRequest struct {
	CorrelationID   int64
	GroupID         string
	MemberID        string
	GroupInstanceID string
	// Coord is simulation metadata, never on the wire: the broker the
	// consumer sent the request to, as [CoordTag] of its FindCoordinator
	// answer (0: the coordinator's own node, or no lookup).
	Coord int32
}

// AppendDescription appends "LeaveGroup#6 group=app-0 member=c-1".
func (r *LeaveGroupRequest) AppendDescription(b []byte) []byte {
	b = appendGroupHead(b, "LeaveGroup#", r.CorrelationID, r.GroupID)
	b = appendMember(b, r.MemberID, r.GroupInstanceID)
	return b
}

// LeaveGroupResponse answers a [LeaveGroupRequest]: Err is the request's
// error (COORDINATOR_NOT_AVAILABLE), MemberErr the member's
// (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID).
type LeaveGroupResponse struct {
	CorrelationID int64
	GroupID       string
	Err           ErrCode
	MemberErr     ErrCode
}

// AppendDescription appends "LeaveGroupResp#6 group=app-0 NONE member=NONE".
func (r *LeaveGroupResponse) AppendDescription(b []byte) []byte {
	b = appendGroupAnswer(b, "LeaveGroupResp#", r.CorrelationID, r.GroupID, r.Err)
	b = append(b, " member="...)
	return append(b, r.MemberErr.String()...)
}
