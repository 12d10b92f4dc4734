/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trace_shim.h — force-included (-include) into the runtime's MPI sources by bench/smpi_trace.sh:
 * their point-to-point calls go through trace_shim.c, which records every request's posting and
 * completion in simulated time and writes them per rank at MPI_Finalize. Not part of the library. */
#ifndef GOSSIP_TRACE_SHIM_H
#define GOSSIP_TRACE_SHIM_H
#include <mpi.h>
int trace_Isend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *r);
int trace_Issend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *r);
int trace_Irecv(void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Request *r);
int trace_Waitany(int n, MPI_Request *r, int *i, MPI_Status *st);
int trace_Waitall(int n, MPI_Request *r, MPI_Status *st);
int trace_Wait(MPI_Request *r, MPI_Status *st);
int trace_Test(MPI_Request *r, int *f, MPI_Status *st);
int trace_Finalize(void);
#define MPI_Isend trace_Isend
#define MPI_Issend trace_Issend
#define MPI_Irecv trace_Irecv
#define MPI_Waitany trace_Waitany
#define MPI_Waitall trace_Waitall
#define MPI_Wait trace_Wait
#define MPI_Test trace_Test
#define MPI_Finalize trace_Finalize
#endif
