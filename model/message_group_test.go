package model

import (
	"testing"
	"time"
)

// TestGroupMessageDescriptions: the trace lines of the group membership
// messages, and of the offset commits with and without group metadata
// (without, the line is the one existing traces have).
func TestGroupMessageDescriptions(t *testing.T) {
	md := GroupMetadata{MemberID: "c-1", GenerationID: 3}
	for _, tc := range []struct {
		m    Message
		want string
	}{
		{&JoinGroupRequest{CorrelationID: 3, GroupID: "app-0", MemberID: "c-1", GroupInstanceID: "i", Protocols: []string{"range", "sticky"}, SessionTimeout: time.Second},
			"JoinGroup#3 group=app-0 member=c-1 instance=i protocols=range,sticky"},
		{&JoinGroupResponse{CorrelationID: 3, GroupID: "app-0", GenerationID: 1, MemberID: "c-1", Leader: "c-1", ProtocolName: "range", Members: make([]JoinGroupMember, 2)},
			"JoinGroupResp#3 group=app-0 NONE gen=1 member=c-1 leader=c-1 protocol=range members=2"},
		{&JoinGroupResponse{CorrelationID: 4, GroupID: "g", Err: ErrMemberIDRequired, GenerationID: NoGeneration, MemberID: "c-2"},
			"JoinGroupResp#4 group=g MEMBER_ID_REQUIRED gen=-1 member=c-2 leader="},
		{&JoinGroupResponse{CorrelationID: 5, GroupID: "g", GenerationID: 2, MemberID: "i-3", Leader: "i-3", Members: make([]JoinGroupMember, 1), SkipAssignment: true},
			"JoinGroupResp#5 group=g NONE gen=2 member=i-3 leader=i-3 members=1 skip-assignment"},
		{&SyncGroupRequest{CorrelationID: 4, GroupID: "app-0", GroupMetadata: GroupMetadata{MemberID: "c-1", GenerationID: 1}, Assignments: make([]GroupAssignment, 2)},
			"SyncGroup#4 group=app-0 member=c-1 gen=1 assignments=2"},
		{&SyncGroupResponse{CorrelationID: 4, GroupID: "app-0", Partitions: []int32{0, 1}}, "SyncGroupResp#4 group=app-0 NONE p=0,1"},
		{&HeartbeatRequest{CorrelationID: 5, GroupID: "app-0", GroupMetadata: GroupMetadata{MemberID: "c-1", GroupInstanceID: "i", GenerationID: 1}},
			"Heartbeat#5 group=app-0 member=c-1 instance=i gen=1"},
		{&HeartbeatResponse{CorrelationID: 5, GroupID: "app-0", Err: ErrRebalanceInProgress}, "HeartbeatResp#5 group=app-0 REBALANCE_IN_PROGRESS"},
		{&LeaveGroupRequest{CorrelationID: 6, GroupID: "app-0", MemberID: "c-1"}, "LeaveGroup#6 group=app-0 member=c-1"},
		{&LeaveGroupResponse{CorrelationID: 6, GroupID: "app-0", MemberErr: ErrFencedInstanceID}, "LeaveGroupResp#6 group=app-0 NONE member=FENCED_INSTANCE_ID"},
		{&TxnOffsetCommitRequest{CorrelationID: 7, GroupID: "app-0", PID: 42, Offset: 10}, "TxnOffsetCommit#7 group=app-0 pid=42 e=0 offset=10"},
		{&TxnOffsetCommitRequest{CorrelationID: 7, GroupID: "app-0", PID: 42, Offset: 10, GroupMetadata: md}, "TxnOffsetCommit#7 group=app-0 pid=42 e=0 offset=10 member=c-1 gen=3"},
		{&OffsetCommitRequest{CorrelationID: 5, GroupID: "r1", Partitions: []int32{0}, Offsets: []int64{10}}, "OffsetCommit#5 group=r1 p0=10"},
		{&OffsetCommitRequest{CorrelationID: 5, GroupID: "r1", Partitions: []int32{0}, Offsets: []int64{10}, GroupMetadata: md}, "OffsetCommit#5 group=r1 p0=10 member=c-1 gen=3"},
	} {
		if got := string(tc.m.AppendDescription(nil)); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

// TestGroupMetadataNone: the zero value and an explicit generation -1
// carry no group metadata; anything naming a member does.
func TestGroupMetadataNone(t *testing.T) {
	for _, tc := range []struct {
		md   GroupMetadata
		none bool
		gen  int32
	}{
		{GroupMetadata{}, true, NoGeneration},
		{GroupMetadata{GenerationID: NoGeneration}, true, NoGeneration},
		{GroupMetadata{MemberID: "c-1", GenerationID: 2}, false, 2},
		{GroupMetadata{GroupInstanceID: "i", GenerationID: NoGeneration}, false, NoGeneration},
		{GroupMetadata{GenerationID: 4}, false, 4},
	} {
		if tc.md.None() != tc.none || tc.md.Generation() != tc.gen {
			t.Errorf("%+v: None %v Generation %d", tc.md, tc.md.None(), tc.md.Generation())
		}
	}
}
