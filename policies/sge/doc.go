// Package sge is the Sun Grid Engine queue choice of the SGE
// load-balancing paper: hosts are queues of slots whose jobs share the
// processor (Batsim's compute sharing); sge-loadbalanced sends each job to
// the host with the largest fraction of free slots, sge-default-rr is
// SGE's default round robin (or seqno, or least load).
package sge
