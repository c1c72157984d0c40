// Package topo is the shape of a run's world (world.Topology): brokers,
// partition leaders, the coordinator's placement, and the node names.
package topo

import (
	"fmt"
	"strconv"
)

// Topology is the shape of a run's world: how many brokers, which broker
// leads each partition, where the transaction coordinator sits, and the
// applications. The World builds its node table from it and generates
// every node name; no other code spells a node name but the registered
// server kinds' files (scenarios/world/serverkind.go), each its node's.
type Topology struct {
	// Brokers is the number of brokers, 1..64; they are named b1..bN.
	Brokers int
	// Leaders gives the leader broker index (0-based) of every partition
	// of the topic: partition p is led by broker p mod Brokers (round
	// robin). With replication.factor above 1 the next brokers hold its
	// other copies (world_repl.go).
	Leaders []int32
	// Coordinator is where the transaction coordinator runs. Today it is
	// always a node of its own, c1 (CoordinatorOwnNode); replication moves
	// it onto the leader of a __transaction_state partition.
	Coordinator CoordinatorPlacement
}

// CoordinatorPlacement tells where the transaction coordinator runs.
type CoordinatorPlacement uint8

// Coordinator placements.
const (
	// CoordinatorOwnNode: the coordinator is a node of its own, c1.
	CoordinatorOwnNode CoordinatorPlacement = iota
)

// MaxBrokers bounds the brokers parameter.
const MaxBrokers = 64

// New returns brokers brokers leading partitions round robin.
func New(brokers, partitions int) (Topology, error) {
	if brokers < 1 || brokers > MaxBrokers {
		return Topology{}, fmt.Errorf("brokers=%d is out of range (allowed: 1..%d)", brokers, MaxBrokers)
	}
	t := Topology{Brokers: brokers, Leaders: make([]int32, partitions)}
	for p := range t.Leaders {
		t.Leaders[p] = int32(p % brokers)
	}
	return t, nil
}

// BrokerName returns the name of broker index i (0-based): "b1", "b2", ...
func (t Topology) BrokerName(i int) string { return "b" + strconv.Itoa(i+1) }

// CoordinatorName returns the transaction coordinator's node name.
func (t Topology) CoordinatorName() string { return "c1" }

// ControllerName returns the KRaft controller's node name (replicated
// runs).
func (t Topology) ControllerName() string { return "n1" }

// InstanceName returns the name of the i-th producer instance (0-based,
// over all applications): "p1", "p2", ...
func InstanceName(i int) string {
	if i >= 0 && i < len(instanceNames) {
		return instanceNames[i]
	}
	return "p" + strconv.Itoa(i+1)
}

// instanceNames are the first instances' names, made once.
var instanceNames = func() (ns [64]string) {
	for i := range ns {
		ns[i] = "p" + strconv.Itoa(i+1)
	}
	return ns
}()
