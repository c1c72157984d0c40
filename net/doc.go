// Package net simulates a lossy network between simulated nodes. It performs
// no I/O and is unrelated to the standard library's net package; every
// importer names it simnet:
//
//	import simnet "github.com/idemsim/idemsim/net"
//
// The network never looks inside the messages it carries. The caller (the
// scenario's world) asks [Network.Send] when, and whether, a message arrives,
// schedules the arrival on its loop, and asks [Network.Arrive] at that time
// whether the message survived what happened on the wire meanwhile (a broken
// connection, a partition).
//
// # Transport modes
//
// [TCP] (the default) is faithful to Kafka: messages on one connection
// arrive in the order they were sent, and a lost message breaks the
// connection, which loses everything still on it. [Datagram] is for what-if
// studies: each message is lost, duplicated, delayed and held back
// ([Config.Reorder]) independently, so messages may overtake each other.
// Latency is set per directed link ([Config.Links]). A broken TCP
// connection may give its client a disconnect notice one latency later
// ([Network.TakeNotices]). The network does not model server processing:
// the world hands each arriving request to its server at once, so a server
// handles one request at a time per connection, in arrival order.
//
// # Fault plans
//
// Fault plans (package faults) cut and heal links ([Network.Cut],
// [Network.Heal]) and lose numbered messages through the world
// ([Network.SendLost]); the network knows nothing of plans.
//
// # Determinism
//
// All randomness comes from the one *rand.Rand handed to [New], which the
// world derives from the run seed with the stream id "net". A fault source
// whose probability is zero draws nothing.
package net
