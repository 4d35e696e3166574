/* job_mpi.h — the few MPI operations a render split over processes needs
 * (job_split.c), behind functions that exist with or without MPI: built
 * with QR_MPI (job_mpi.c) they use MPI when the process was started by an
 * MPI launcher (mpirun, mpiexec, srun); without it, or not so started,
 * there is one process and nothing changes. MPI is called from the
 * process's main thread only. Internal to the job layer.
 */
#ifndef QR_JOB_MPI_H
#define QR_JOB_MPI_H

#include <stdbool.h>
#include <stddef.h>

#include "quadrender/error.h"

typedef struct job_mpi {
    int rank, size;             /* in the job (0 of 1 without MPI) */
    int local_rank, local_size; /* among the job's processes on this host */
} job_mpi;

/* Whether an MPI launcher started this process (its environment says so). */
bool job_mpi_launched(void);

/* The cores this process may run on (its affinity; 0: unknown): a
 * launcher that binds each process to a core leaves its encoders one. */
int job_cores_allowed(void);

/* Joins the job when launched (job_mpi_launched; MPI_Init, once per
 * process: later calls answer the same, and the process leaves the job,
 * MPI_Finalize, when it exits), else fills in one process. QR_ERR_INVALID
 * when launched but built without MPI. */
qr_status job_mpi_start(job_mpi *m, qr_error *err);

/* The largest v of all processes (every process calls it, as for all the
 * collective calls below): how the job agrees on an exit code. */
int job_mpi_max(const job_mpi *m, int v);

/* Messages to process 0, in order from each sender: `kind` and `status`
 * (a frame stripe's index and exit code, say) and bytes (may be NULL, 0). */
qr_status job_mpi_send(const job_mpi *m, int kind, int status, const void *data, size_t len,
                       qr_error *err);
/* The next message from process `from` (-1: any), into a malloc'd buffer
 * (*data, free() it; NULL when empty), with its sender. */
qr_status job_mpi_recv(const job_mpi *m, int from, int *sender, int *kind, int *status,
                       void **data, size_t *len, qr_error *err);
/* Process 0 tells every other one to stop (job_mpi_stopped answers true). */
void job_mpi_stop_all(const job_mpi *m);
bool job_mpi_stopped(const job_mpi *m);

#endif
