// Package plots draws charts of simulation results with gonum/plot. It
// takes plain data (its own input types) and never runs a simulation.
package plots
