// Package concurrency holds only a test: every built-in policy, run in
// goroutines side by side, decides as it does alone. A policy keeps its
// state in its own value (DESIGN: policies stay pure, without globals), so
// that a campaign runs many at once; under the race detector (make test
// runs this package with -race: its test runs in parallel, see
// internal/racepkgs) a policy that shares memory between its instances is
// a reported race, and without it a policy whose decisions depend on
// another instance's differs from its lone run.
package concurrency
