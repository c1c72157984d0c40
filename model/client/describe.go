package client

import (
	"github.com/idemsim/idemsim/model"
	"strconv"
)

// DescribeState returns the producer's client state in a few deterministic
// lines, for tests and traces:
//
//	pid=1000 e=1 bumps=1
//	p0 pid=1000 e=1 next=3 acked=0 unacked=[0..0 wire, 1..2 queued] new=1
//
// "unacked" lists the sequenced, unfinished batches in sequence order with
// where they are; "new" counts queued batches without a sequence yet.
func (p *Producer) DescribeState() string {
	b := []byte("pid=")
	b = strconv.AppendInt(b, int64(p.pid), 10)
	b = append(b, " e="...)
	b = strconv.AppendInt(b, int64(p.epoch), 10)
	b = append(b, " bumps="...)
	b = strconv.AppendInt(b, int64(p.bumps), 10)
	if p.fatal != model.ErrNone {
		b = append(b, " fatal="...)
		b = append(b, p.fatal.String()...)
	}
	if p.abortErr != model.ErrNone {
		b = append(b, " abortable="...)
		b = append(b, p.abortErr.String()...)
	}
	for _, ps := range p.parts {
		b = append(b, "\np"...)
		b = strconv.AppendInt(b, int64(ps.id), 10)
		if p.cfg.EnableIdempotence {
			b = append(b, " pid="...)
			b = strconv.AppendInt(b, int64(ps.pid), 10)
			b = append(b, " e="...)
			b = strconv.AppendInt(b, int64(ps.epoch), 10)
			b = append(b, " next="...)
			b = strconv.AppendInt(b, int64(ps.nextSeq), 10)
			b = append(b, " acked="...)
			b = strconv.AppendInt(b, int64(ps.lastAckedSeq), 10)
		}
		b = append(b, " unacked=["...)
		for i, u := range ps.unacked {
			if i > 0 {
				b = append(b, ", "...)
			}
			if u.hasSeq {
				b = strconv.AppendInt(b, int64(u.b.FirstSeq), 10)
				b = append(b, ".."...)
				b = strconv.AppendInt(b, int64(u.b.LastSeq), 10)
			} else {
				b = u.b.Records[0].ID.AppendID(b)
			}
			if u.req != nil {
				b = append(b, " wire"...)
			} else {
				b = append(b, " queued"...)
			}
		}
		b = append(b, ']')
		n := 0
		for _, q := range ps.queue {
			if !q.hasSeq && !q.done && q.attempts == 0 {
				n++
			}
		}
		b = append(b, " new="...)
		b = strconv.AppendInt(b, int64(n), 10)
		if ps.unresolved {
			b = append(b, " unresolved="...)
			b = strconv.AppendInt(b, int64(ps.unresolvedNext), 10)
		}
		if ps.bumpWanted {
			b = append(b, " bump-wanted"...)
		}
		if ps.ppNext >= 0 {
			b = append(b, " possibly-persisted<"...)
			b = strconv.AppendInt(b, int64(ps.ppNext), 10)
		}
	}
	return string(b)
}
