//go:build race

package main

// raceEnabled reports that the race detector is on: timings mean nothing then.
const raceEnabled = true
