// Package bot is the bag-of-tasks consolidation of the BoT thesis:
// bot-consolidation (Algorithm 1 with Table 6's criteria, each VM replaying
// its column on a core), threshold-vm-consolidation (the system level that
// moves VMs off overloaded and idle nodes and switches nodes off and on)
// and bot-packing-online. PlanBoT computes Algorithm 1's plans.
package bot
