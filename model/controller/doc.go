// Package controller is the KRaft controller as one node ([Controller]):
// broker heartbeats, fencing a broker whose session expired
// (BrokerHeartbeatManager, ClusterControlManager), leader elections and
// ISR changes (ReplicationControlManager and PartitionChangeBuilder, under
// QuorumController), AlterPartition, and the metadata every change
// publishes to the brokers.
//
// It is a pure state machine ([model.Server]): requests and timers in,
// effects out.
package controller
