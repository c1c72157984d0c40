package model

import (
	"reflect"
	"testing"
)

// TestRangeAssign: RangeAssignor's arithmetic (the first
// partitions%members get one more) and its member order (static members
// by group instance id first, then member ids).
func TestRangeAssign(t *testing.T) {
	dyn := func(ids ...string) []JoinGroupMember {
		var ms []JoinGroupMember
		for _, id := range ids {
			ms = append(ms, JoinGroupMember{MemberID: id})
		}
		return ms
	}
	for _, tc := range []struct {
		name       string
		members    []JoinGroupMember
		partitions int32
		want       map[string][]int32
		order      []string
	}{
		{"even", dyn("c-2", "c-1"), 4, map[string][]int32{"c-1": {0, 1}, "c-2": {2, 3}}, []string{"c-1", "c-2"}},
		{"extra to the first", dyn("c-3", "c-1", "c-2"), 4, map[string][]int32{"c-1": {0, 1}, "c-2": {2}, "c-3": {3}}, []string{"c-1", "c-2", "c-3"}},
		{"more members than partitions", dyn("b", "a", "c"), 2, map[string][]int32{"a": {0}, "b": {1}, "c": {}}, []string{"a", "b", "c"}},
		{"one member", dyn("x"), 3, map[string][]int32{"x": {0, 1, 2}}, []string{"x"}},
		{"string order of ids", dyn("c-10", "c-9"), 2, map[string][]int32{"c-10": {0}, "c-9": {1}}, []string{"c-10", "c-9"}},
		{"static first", []JoinGroupMember{{MemberID: "a-1"}, {MemberID: "z-1", GroupInstanceID: "i2"}, {MemberID: "y-1", GroupInstanceID: "i1"}}, 3,
			map[string][]int32{"y-1": {0}, "z-1": {1}, "a-1": {2}}, []string{"y-1", "z-1", "a-1"}},
		{"no members", nil, 3, map[string][]int32{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]JoinGroupMember(nil), tc.members...)
			got := RangeAssign(tc.members, tc.partitions)
			if !reflect.DeepEqual(in, tc.members) {
				t.Fatalf("members changed: %v", tc.members)
			}
			var order []string
			m := map[string][]int32{}
			for _, a := range got {
				order = append(order, a.MemberID)
				m[a.MemberID] = a.Partitions
			}
			if !reflect.DeepEqual(order, tc.order) {
				t.Errorf("order %v, want %v", order, tc.order)
			}
			if !reflect.DeepEqual(m, tc.want) {
				t.Errorf("got %v, want %v", m, tc.want)
			}
		})
	}
}
