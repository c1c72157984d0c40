package params

// AdminParam is the admin node's parameter, for the Extra of a scenario
// that has it (hanging-abort); on is its default.
func AdminParam(on bool) Param {
	def := "false"
	if on {
		def = "true"
	}
	return Param{Key: "admin", Kind: Bool, Default: def, Doc: "the run has an admin node, a1 (model/admin, docs/operations.md), which carries out the plan's abort-transaction lines (kafka-transactions.sh find-hanging and abort)"}
}

func init() { fields["admin"] = func(c *Config) any { return &c.Extra.Admin } }
