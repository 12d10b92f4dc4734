/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gossip.h — the umbrella header of libgossip: plan, prove and simulate broadcast, gossip
 * (all-gather) and global sum (all-reduce) on interconnection networks. Everything a program
 * needs to plan, verify, write and export a schedule (examples/plan_verify.c); the MPI
 * runtime's API is gossip/mpi.h (libgossip_mpi). */
#ifndef GOSSIP_GOSSIP_H
#define GOSSIP_GOSSIP_H

#include "gossip/version.h"
#include "gossip/core.h"
#include "gossip/model.h"
#include "gossip/topo.h"
#include "gossip/analysis.h"
#include "gossip/fabric.h"
#include "gossip/bounds.h"
#include "gossip/scatter.h"
#include "gossip/problemb.h"
#include "gossip/revolve.h"
#include "gossip/circulant.h"
#include "gossip/sched.h"
#include "gossip/algo.h"
#include "gossip/runtime.h"
#include "gossip/sat.h"

#endif
