// Package shard is the split of one sweep or exploration into shards i/n
// and the checks that merge the shards' -out directories back: [Parse]
// reads the -shard flag's "i/n", a [Set] accepts every shard of one split
// exactly once, and [OutNotInput] keeps a merge from writing into one of
// its inputs. What a shard runs (every n-th seed of a sweep, every n-th
// first fault of an exploration) is its caller's business; this package
// imports the standard library only.
package shard
