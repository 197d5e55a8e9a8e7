// Package testsplit holds the test that keeps make test's split of the
// tests whole. It has no code of its own.
//
// make test runs every package under the race detector but the tests the
// Makefile's RACE_SKIP names, which its long suites run without it. The
// race run's -skip matches a name in every package, so a test elsewhere
// that shares one of those names would run in neither. The test reads
// the go test commands make test runs (make -n test) and checks, over
// every test function of the module, that each one the race run
// skips is run by a long suite, and that every name RACE_SKIP lists
// exists.
package testsplit
