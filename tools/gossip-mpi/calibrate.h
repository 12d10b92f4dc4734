/* SPDX-License-Identifier: GPL-3.0-or-later */
/* calibrate.h — `gossip-mpi calibrate` (calibrate.c). */
#ifndef GOSSIP_MPI_CALIBRATE_H
#define GOSSIP_MPI_CALIBRATE_H

/* calibrate --help. */
extern const char gm_calibrate_usage[];
/* Runs `calibrate` with argv[2..] as its options on every rank (after MPI_Init); the exit code. */
int gm_calibrate(int argc, char **argv, int rank, int size);

#endif
