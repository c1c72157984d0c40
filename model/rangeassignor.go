package model

import (
	"cmp"
	"slices"
)

// RangeAssignorName is the range assignor's protocol name
// (RangeAssignor.RANGE_ASSIGNOR_NAME).
const RangeAssignorName = "range"

// RangeAssign is the consumer group leader's range assignment of one
// topic's partitions 0..partitions-1 to members (apache/kafka 4.0,
// clients/src/main/java/org/apache/kafka/clients/consumer/RangeAssignor.java,
// assign; rack awareness left out): the members are sorted as
// AbstractPartitionAssignor.MemberInfo.compareTo sorts them, static
// members (a group instance id) first by group instance id, then the
// others by member id; each gets partitions/len(members) consecutive
// partitions, and the first partitions%len(members) one more. The answer
// has one entry per member, in that order, with an empty (non-nil when
// partitions > 0) list for a member that gets none; members is not
// changed.
func RangeAssign(members []JoinGroupMember, partitions int32) []GroupAssignment {
	sorted := slices.Clone(members)
	slices.SortFunc(sorted, compareMemberInfo)
	out := make([]GroupAssignment, len(sorted))
	if len(sorted) == 0 {
		return out
	}
	n := int32(len(sorted))
	per, extra := partitions/n, partitions%n
	all := make([]int32, partitions)
	for i := range all {
		all[i] = int32(i)
	}
	for i := int32(0); i < n; i++ {
		start := per*i + min(i, extra)
		length := per
		if i < extra {
			length++
		}
		out[i] = GroupAssignment{MemberID: sorted[i].MemberID, Partitions: all[start : start+length : start+length]}
	}
	return out
}

// compareMemberInfo orders members as MemberInfo.compareTo does.
func compareMemberInfo(a, b JoinGroupMember) int {
	switch {
	case a.GroupInstanceID != "" && b.GroupInstanceID != "":
		return cmp.Compare(a.GroupInstanceID, b.GroupInstanceID)
	case a.GroupInstanceID != "":
		return -1
	case b.GroupInstanceID != "":
		return 1
	}
	return cmp.Compare(a.MemberID, b.MemberID)
}
