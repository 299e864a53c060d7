//go:build race

package packbench

// raceEnabled shortens the real-data tests under the race detector, which
// slows the simulation about tenfold.
const raceEnabled = true
