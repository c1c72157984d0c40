package params

import "fmt"

// CheckInput refuses an input topic (app.input=topic) the model cannot
// run yet, in one line naming the key: at least once with
// transactions (the loop commits its offsets after the acknowledgements,
// which an abort can undo), and exactly once with
// more than one input partition (the offset commit, TxnOffsetCommit,
// carries one offset per group). txnRecords is the effective
// transaction.records (0 once a transactional.id is dropped).
func (c *Config) CheckInput(txnRecords int) error {
	if !c.App.TopicInput() {
		return nil
	}
	if c.App.Mode == AppAtLeastOnce && txnRecords > 0 {
		return fmt.Errorf("app.input=topic with app.mode=at-least-once needs transaction.records=0: its loop commits its offsets once its sends are acknowledged, which a transaction does not make final (use app.mode=exactly-once)")
	}
	if c.App.Mode == AppExactlyOnce && c.App.InputPartitions > 1 {
		return fmt.Errorf("input.partitions=%d needs app.mode=at-least-once: with app.mode=exactly-once the offset commit carries one offset per group (allowed: 1)", c.App.InputPartitions)
	}
	return nil
}
