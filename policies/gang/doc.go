// Package gang is gang scheduling on a multicluster (the MCMCA paper): a
// grid dispatcher and local dispatchers put each task of a job in a host's
// queue (AFCFS, LJFS or LXF order); a job starts when its tasks head idle
// hosts' queues, and waiting tasks migrate locally or to another cluster.
package gang
