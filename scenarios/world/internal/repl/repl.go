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
