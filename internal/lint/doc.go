// Package lint holds style rules enforced as ordinary tests: the
// package-import matrix, the simnet alias and the determinism bans of the
// simulated world. It has no non-test code.
package lint
