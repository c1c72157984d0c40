package params

import "fmt"

// CheckInput refuses an input topic (app.input=topic) the model cannot
// run yet, in one line naming the key: exactly once with more than one
// input partition (the offset commit, TxnOffsetCommit, carries one
// offset per group).
func (c *Config) CheckInput() error {
	if c.App.GroupApp() && !c.App.TopicInput() {
		return fmt.Errorf("app.mode=%s with app.instances=%d needs app.input=topic: its instances are consumers in a group (allowed with app.input=synthetic: at-least-once or exactly-once with app.instances=1)", c.App.Mode, c.App.Instances)
	}
	if c.App.Instances > 1 && c.App.Mode == AppExactlyOnce {
		return fmt.Errorf("app.instances=%d needs app.mode=exactly-once-v2, exactly-once-groupid or at-least-once: exactly-once runs one instance at a time (allowed: 1)", c.App.Instances)
	}
	if !c.App.TopicInput() {
		return nil
	}
	if c.App.Mode == AppExactlyOnce && c.App.InputPartitions > 1 {
		return fmt.Errorf("input.partitions=%d needs app.mode=at-least-once: with app.mode=exactly-once the offset commit carries one offset per group (allowed: 1)", c.App.InputPartitions)
	}
	return nil
}
