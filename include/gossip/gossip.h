/* gossip.h — the umbrella header of libgossip: plan, prove and simulate broadcast, gossip
 * (all-gather) and global sum (all-reduce) on interconnection networks. */
#ifndef GOSSIP_GOSSIP_H
#define GOSSIP_GOSSIP_H

#include "gossip/core.h"
#include "gossip/model.h"
#include "gossip/topo.h"
#include "gossip/analysis.h"
#include "gossip/bounds.h"
#include "gossip/scatter.h"
#include "gossip/problemb.h"
#include "gossip/revolve.h"
#include "gossip/circulant.h"

#endif
