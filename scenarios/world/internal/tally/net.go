package tally

import "github.com/idemsim/idemsim/model"

// NetStats counts what happened to messages on the network.
type NetStats struct {
	// RequestsSent and ResponsesSent count messages put on the wire.
	RequestsSent  int64 `json:"requests_sent"`
	ResponsesSent int64 `json:"responses_sent"`
	// RequestsLost and ResponsesLost count loss draws that came up lost.
	RequestsLost  int64 `json:"requests_lost"`
	ResponsesLost int64 `json:"responses_lost"`
	// Dropped counts messages dropped for a broken connection or a
	// partition, at send or on the wire.
	Dropped int64 `json:"dropped"`
	// The counts above are the producers' traffic. ServerSent counts the
	// messages between two servers put on the wire (markers,
	// verifications and their answers), ServerDropped those of them lost,
	// cut off or dropped for a broken connection or a crash.
	ServerSent    int64 `json:"server_sent"`
	ServerDropped int64 `json:"server_dropped"`
}

// Group counts a group coordinator's answers to a group application
// (app.mode=exactly-once-v2, exactly-once-groupid): Fenced the
// TxnOffsetCommits refused on the sender's membership
// (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID), Unstable
// the require_stable offset fetches answered UNSTABLE_OFFSET_COMMIT,
// Stall how long members stayed stuck on that answer.
type Group struct {
	Fenced, Unstable int64
	Stall            OffsetStall
}

// Observe counts o, a group coordinator's model.ObsOffsets.
func (g *Group) Observe(o *model.Obs) {
	g.Stall.Observe(o)
	switch {
	case o.Text == "txn-offset-commit" && (o.Err == model.ErrIllegalGeneration || o.Err == model.ErrUnknownMemberID || o.Err == model.ErrFencedInstanceID):
		g.Fenced++
	case o.Text == "offset-fetch" && o.Err == model.ErrUnstableOffsetCommit:
		g.Unstable++
	}
}
