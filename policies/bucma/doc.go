// Package bucma is the BUCMA user-trust model (bucma.txt): each user's
// score Su learnt from the precision of their walltimes (Scores), and the
// re-ranking of any base policy's queue by Sf (Eq. 2, sched.Rerank) before
// the base's start rule and host selection run. Register adds bucma (any
// weights) and the paper's two weightings, bucma5302 and bucma4303, over
// every base policy of the registry.
package bucma
