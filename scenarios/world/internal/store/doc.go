// Package store holds the World's compact containers: an id-indexed
// table for values handed out in increasing id order ([IDTable]: the
// messages on the wire, the reply routes), a bitset of message numbers
// ([Bitset]) and a window of a producer instance's unresolved records
// ([RecordSet]). Each is an index, not a map, so that the hot path
// hashes nothing and no map's iteration order can reach a run.
package store
