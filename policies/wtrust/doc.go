// Package wtrust is the walltime-trust algorithm of the BUCMA paper
// (Algorithm 1), for platforms where walltimes are precise: the queue in
// W × res order, descending when enough hosts are free (the threshold),
// ascending otherwise, started in order and then EASY-backfilled.
package wtrust
