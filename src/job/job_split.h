/* job_split.h — a job over several GPUs of this host (a thread each) or
 * several processes (an MPI launcher: a process each, on its GPU on the
 * host), "lanes" (job_split.c). Internal to the job layer; job.c resolves
 * the job, then hands over.
 */
#ifndef QR_JOB_SPLIT_H
#define QR_JOB_SPLIT_H

#include "job/job_ctx.h"
#include "job/job_mpi.h"

/* Renders st's job over m's processes, or (one process) over the GPUs
 * gpus[0..ngpus-1]. On failure err holds this process's first failure,
 * tagged with its lane ("GPU 1: ", "rank 1: "), or says that another
 * process failed (res->elsewhere); every process answers the same status. */
qr_status job_split(job_state *st, const job_mpi *m, const int *gpus, int ngpus,
                    qr_job_result *res, qr_error *err);

#endif
