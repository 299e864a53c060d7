//go:build !race

package packbench

const raceEnabled = false
