// Package realbatsim5 is the Batsim 5 test tier: it runs the real Batsim
// 5.0.0-rc2 (batsim5) against bucma as an external decision component, over
// ZeroMQ (served in the test process) and as a shared library (cmd/libbucma,
// built once per run), with every built-in policy on the bundled platforms;
// compares bucma's twins of Batsim's own test decision components with
// those components, output file for output file; and compares a policy's
// decisions through Batsim 4.2.1 and Batsim 5 on the same workload. The
// tests skip, with one line, where batsim5 is not installed (BATSIM5 names
// it otherwise; BATSIM5_EDC the directory of Batsim's test components,
// default /opt/batsim5/lib/batsim-edc).
package realbatsim5
