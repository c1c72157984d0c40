package repl

import "github.com/idemsim/idemsim/model"

// Replicas returns each partition's replica assignment for factor rf,
// with partition p's preferred leader leaders[p] among brokers brokers:
// the preferred leader first, then the next brokers.
func Replicas(leaders []int32, brokers, rf int) [][]int32 {
	out := make([][]int32, len(leaders))
	for p, l := range leaders {
		for i := 0; i < rf; i++ {
			out[p] = append(out[p], (l+int32(i))%int32(brokers))
		}
	}
	return out
}

// IsMsg reports whether m travels as replication traffic.
func IsMsg(m model.Message) bool {
	switch m.(type) {
	case *model.FetchRequest, *model.FetchResponse, *model.BrokerHeartbeatRequest, *model.BrokerHeartbeatResponse,
		*model.AlterPartitionRequest, *model.AlterPartitionResponse, *model.MetadataUpdate:
		return true
	}
	return false
}

// NextHost returns the first of brokers 0..n-1 after host, in index order
// and wrapping, that ok accepts (host itself last), or -1: where the
// controller's election moves a coordinator's log partition when its
// leader goes.
func NextHost(host, n int, ok func(b int) bool) int {
	for i := 1; i <= n; i++ {
		if b := (host + i) % n; ok(b) {
			return b
		}
	}
	return -1
}
