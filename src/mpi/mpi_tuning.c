/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mpi_tuning.c — the tuning file applied to a communicator's cost model: rank 0 reads it and
 * broadcasts what it found, so every rank chooses from the same model even when the ranks' file
 * systems differ. PMPI_Bcast: the drop-in intercepts MPI_Bcast, and this runs while it builds
 * its context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/mpi.h"

typedef struct {
    int status;
    gsp_cost_t cost;
    char note[1024];
} found_t;

/* path with the home directory written ~ (what a user would type). */
static void tilde(const char *path, char *out, size_t n) {
    const char *home = getenv("HOME");
    size_t h = home ? strlen(home) : 0;
    if (h > 1 && !strncmp(path, home, h) && path[h] == '/') snprintf(out, n, "~%s", path + h);
    else snprintf(out, n, "%s", path);
}

gsp_tuning_status_t gsp_mpi_tuning(MPI_Comm comm, const char *path, gsp_cost_t *cost, char *note, size_t n) {
    found_t f;
    int rank = 0;
    memset(&f, 0, sizeof f);
    PMPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        char where[512] = "", shown[400];
        int at = path ? (strcmp(path, "none") ? 1 : -1) : gsp_cost_tuning_path(where, sizeof where);
        if (path && at > 0) snprintf(where, sizeof where, "%s", path);
        if (!where[0] && getenv("HOME")) snprintf(where, sizeof where, "%s/.config/gossip/tuning.json", getenv("HOME"));
        tilde(where[0] ? where : "tuning.json", shown, sizeof shown);
        const char *how = cost->shared ? "mpirun -n 2" : "mpirun -n 2 --map-by node";
        gsp_cost_origin_t o;
        f.cost = *cost;
        f.status = GSP_TUNING_NONE;
        if (at < 0)
            snprintf(f.note, sizeof f.note, "no tuning file; defaults used (calibrate with: %s gossip-mpi calibrate -o %s)", how, shown);
        else if (gsp_cost_load(where, &f.cost, &o)) {
            f.status = GSP_TUNING_ERROR;
            snprintf(f.note, sizeof f.note, "%s; defaults used", gsp_errmsg());
            f.cost = *cost;
        } else if (f.cost.shared != cost->shared) {
            f.status = GSP_TUNING_OTHER_SETTING;
            snprintf(f.note, sizeof f.note,
                     "tuning file %s was measured with %s, but these ranks %s: defaults used (calibrate like this: %s gossip-mpi calibrate)",
                     shown, f.cost.shared ? "every rank on one node" : "ranks on different nodes",
                     cost->shared ? "share one node" : "span nodes", how);
            f.cost = *cost;
        } else {
            f.status = GSP_TUNING_LOADED;
            snprintf(f.note, sizeof f.note, "tuning file %s%s%s%s%s%s", shown, o.host[0] || o.date[0] ? " (measured" : "",
                     o.host[0] ? " on " : "", o.host, o.date[0] ? " at " : "", o.date);
            if (o.host[0] || o.date[0]) strncat(f.note, ")", sizeof f.note - strlen(f.note) - 1);
        }
    }
    PMPI_Bcast(&f, (int)sizeof f, MPI_BYTE, 0, comm);
    *cost = f.cost;
    if (note && n) snprintf(note, n, "%s", f.note);
    return (gsp_tuning_status_t)f.status;
}
