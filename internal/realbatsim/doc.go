// Package realbatsim is the real-Batsim test tier: differential tests that
// run the real Batsim 4.2.1 (and batsched) on generated platforms and
// workloads and compare their outputs with bucma's engine and policies. The
// tests skip, saying so, where Batsim is not installed; see the README.
package realbatsim
