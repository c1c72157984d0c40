package client

import (
	"slices"
	"strconv"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// The producer's metadata (the Java client's ProducerMetadata and
// NetworkClient.DefaultMetadataUpdater, clients/src/main/java/org/apache/
// kafka/clients/NetworkClient.java): with [ProducerConfig.RefreshMetadata]
// a NOT_LEADER_OR_FOLLOWER answer or a broken connection to a broker marks
// the metadata stale (Metadata.requestUpdate); the next sender pass sends a
// Metadata request to the least loaded broker, at most one at a time and
// not sooner than retry.backoff.ms after the last answer
// (Metadata.timeToNextUpdate), and metadata older than
// metadata.max.age.ms is refreshed at the next pass too. The answer
// moves each partition to the leader it names; a partition without a
// leader keeps the old one and the metadata stays stale. Batches already
// sent stay on their connection: batches to different leaders may
// reorder, each connection keeps its order.

// requestMetadata marks the metadata stale.
func (p *Producer) requestMetadata() {
	if p.cfg.RefreshMetadata {
		p.metaStale = true
	}
}

// maybeUpdateMetadata sends a Metadata request when one is due.
func (p *Producer) maybeUpdateMetadata(now sim.Time) {
	if !p.cfg.RefreshMetadata || p.metaInflight || now < p.metaRetryAt {
		return
	}
	if !p.metaStale && (p.cfg.MetadataMaxAge <= 0 || now < p.metaAt.Add(p.cfg.MetadataMaxAge)) {
		return
	}
	// The least loaded node (NetworkClient.leastLoadedNode): fewest
	// requests in flight among brokers it may talk to now, scanning from
	// a rotating start.
	n := int32(max(p.cfg.Brokers, 1))
	best, bestLoad := int32(-1), 0
	for i := int32(0); i < n; i++ {
		d := (p.metaNext + i) % n
		c := p.conn(d)
		if !c.ready && now < c.reconnectAt {
			continue
		}
		if best < 0 || len(c.inflight) < bestLoad {
			best, bestLoad = d, len(c.inflight)
		}
	}
	if best < 0 {
		return
	}
	p.metaNext = (best + 1) % n
	c := p.conn(best)
	if !p.ensureConn(now, c) {
		return
	}
	q := p.newRequest(best, now)
	q.meta = true
	c.inflight = append(grab(c.inflight, &c.spare), q)
	p.metaInflight = true
	if req := (&model.MetadataRequest{CorrelationID: p.nextCorr}); p.nagle {
		p.nagleWrite(now, c, q.corr, req) // nagle.go
	} else {
		p.out = append(p.out, model.Out{Kind: model.OutSend, Dest: best, Msg: req})
	}
}

// handleMetadata applies a Metadata answer.
func (p *Producer) handleMetadata(now sim.Time, r *model.MetadataResponse) {
	p.metaInflight = false
	p.metaStale = false
	p.metaAt = now
	p.metaRetryAt = now.Add(p.cfg.RetryBackoff)
	if !p.ownLeaders {
		p.leaders = slices.Clone(p.leaders)
		p.ownLeaders = true
	}
	for i, l := range r.Leaders {
		if i >= len(p.leaders) {
			break
		}
		if l < 0 {
			p.metaStale = true
			continue
		}
		if p.hints && i < len(r.Epochs) {
			// A leader older than the one a hint gave is not taken
			// (Metadata.updateLatestMetadata keeps the cached
			// partition when the answer's epoch is below
			// lastSeenLeaderEpochs, which updatePartitionLeadership
			// also moves).
			ps := p.parts[i]
			if r.Epochs[i] < ps.leaderEpoch {
				continue
			}
			ps.leaderEpoch = r.Epochs[i]
		}
		if p.leaders[i] != l {
			p.note(model.NoteInfo, "metadata: p"+strconv.FormatInt(int64(i), 10)+" leader b"+strconv.FormatInt(int64(l)+1, 10))
			p.leaders[i] = l
		}
	}
}

// Leaders returns the leader the producer believes in for each partition
// (broker indexes). The caller must not modify it.
func (p *Producer) Leaders() []int32 { return p.leaders }
