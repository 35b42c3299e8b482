//go:build race

package serve

// raceDetector: the tests run under -race, which makes code some ten times slower.
const raceDetector = true
