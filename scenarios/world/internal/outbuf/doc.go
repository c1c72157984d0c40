// Package outbuf holds the World's per-depth copies of a node's effects
// and of what they point to (observations, expired batches, outcomes,
// transaction results and their record ids): a node may be re-entered
// (an instant server-to-server message) before the World has carried out
// all of its effects, and its next call reuses its own buffers. It needs
// nothing of the World.
package outbuf
