package scenarios

// Version is the simulator's version, printed in chart footnotes and sweep
// summaries so that a figure can be regenerated with the same model. Bump
// it whenever a change alters any run's trace.
const Version = "0.2.0"
