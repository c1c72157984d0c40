// Package lint holds style rules enforced as ordinary tests: the
// package-import matrix, the simnet alias and the determinism bans of the
// simulated world, and the extension recipes that promise one new file
// (a catalogue scenario, a kind of fault action), built with that file
// added. It has no non-test code.
package lint
