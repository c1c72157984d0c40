// Package snapshot deep-copies a world's object graph by reflection,
// keeping what shares memory shared: an explorer saves a world's state at
// a choice point and restores it for each branch (docs/explore.md).
package snapshot
