// Package hashwalk fingerprints a Go value by walking it with
// reflection into two 64-bit lanes: the state hash an explorer compares
// to skip a state it has explored (scenarios/world's StateHash,
// docs/explore.md "Pruning").
//
// Pointers are numbered in the order they are first met (a pointer met
// again hashes its number, so sharing is part of the state); maps are
// walked in the order of their keys' hashes; slices by content; an
// interface by its dynamic type's name and its value. The caller names
// the fields that hold nothing between events (scratch), the types whose
// fields are skipped wherever they are, and the special types it walks
// itself ([Special]); a struct type whose name ends in "Config" is
// configuration, of which only the pointer, interface and struct fields
// are walked. The walk looks each type up once ([Cache]), not once per
// value.
package hashwalk
