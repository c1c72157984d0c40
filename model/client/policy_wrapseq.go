package client

// wrapSeqs is sequence arithmetic that wraps into the space, as the
// broker's does (ProducerAppendInfo.inSequence), where the Java client
// computes in plain int (javaPolicy): librdkafka wraps its 64-bit message
// ids into the protocol's sequence (rd_kafka_seq_wrap, src/rdkafka_msg.h),
// and idemsim's franz-go policy shares the arithmetic. A policy embeds it
// for its acked, isNextSeq, unackedAt and unresolvedNext.
type wrapSeqs struct{}

// acked moves lastAckedSeq forward, allowing for the wrap within half
// the space (Producer.seqAfter).
func (*wrapSeqs) acked(p *Producer, ps *partState, b *pbatch) {
	if p.seqAfter(b.b.LastSeq, ps.lastAckedSeq) {
		ps.lastAckedSeq = b.b.LastSeq
	}
}

// isNextSeq: the head follows lastAckedSeq in the space, and is 0 when
// nothing is acknowledged.
func (*wrapSeqs) isNextSeq(p *Producer, ps *partState, seq int32) bool {
	if ps.lastAckedSeq < 0 {
		return seq == 0
	}
	return p.cfg.Seq.Next(ps.lastAckedSeq, seq)
}

// unackedAt keeps the batches in sending order, which is sequence order
// across the wrap.
func (*wrapSeqs) unackedAt(ps *partState, _ *pbatch) int { return len(ps.unacked) }

// unresolvedNext is the sequence after b in the space, the later one
// (within half the space) if the partition is unresolved already.
func (*wrapSeqs) unresolvedNext(p *Producer, ps *partState, b *pbatch) {
	if next := p.cfg.Seq.Add(b.b.LastSeq, 1); !ps.unresolved || p.seqAfter(next, ps.unresolvedNext) {
		ps.unresolvedNext = next
	}
}
