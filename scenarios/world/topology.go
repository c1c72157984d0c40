package world

import "github.com/idemsim/idemsim/scenarios/world/internal/topo"

// Topology is the shape of a run's world (internal/topo, moved there to
// keep this package under its size cap).
type Topology = topo.Topology

// CoordinatorPlacement tells where the transaction coordinator runs.
type CoordinatorPlacement = topo.CoordinatorPlacement

// CoordinatorOwnNode: the coordinator is a node of its own, c1;
// MaxBrokers bounds the brokers parameter.
const (
	CoordinatorOwnNode = topo.CoordinatorOwnNode
	MaxBrokers         = topo.MaxBrokers
)

// NewTopology returns brokers brokers leading partitions round robin.
func NewTopology(brokers, partitions int) (Topology, error) { return topo.New(brokers, partitions) }

// InstanceName returns the name of the i-th producer instance (0-based,
// over all applications): "p1", "p2", ...
func InstanceName(i int) string { return topo.InstanceName(i) }
