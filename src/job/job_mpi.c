/* job_mpi.c — see job_mpi.h. With QR_MPI the calls are MPI's; without it
 * they serve the one process there is. */
#define _GNU_SOURCE /* sched_getaffinity */
#include "job/job_mpi.h"

#include <sched.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool job_mpi_launched(void)
{
    /* MPICH's Hydra and PMI, Open MPI, PMIx, Slurm's srun */
    static const char *vars[] = {"PMI_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE",
                                 "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]))
            return true;
    return false;
}

int job_cores_allowed(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    return CPU_COUNT(&set);
}

static void single(job_mpi *m)
{
    m->rank = m->local_rank = 0;
    m->size = m->local_size = 1;
}

#ifdef QR_MPI
#include <mpi.h>

/* Tags: the messages to process 0, and the stop notice from it. */
enum { TAG_DATA = 1, TAG_STOP = 2 };

static qr_status mpi_fail(qr_error *err, int code, const char *what)
{
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(code, s, &n) != MPI_SUCCESS)
        snprintf(s, sizeof s, "error %d", code);
    return qr_fail(err, QR_ERR_IO, "MPI: %s: %s", what, s);
}

/* This process in the job, once joined (MPI is started once). */
static job_mpi world;
static int joined;

static void leave_at_exit(void);

qr_status job_mpi_start(job_mpi *m, qr_error *err)
{
    single(m);
    if (!job_mpi_launched())
        return QR_OK;
    if (joined) {
        *m = world;
        return QR_OK;
    }
    int provided = 0, rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS)
        return qr_fail(err, QR_ERR_IO, "MPI_Init failed (error %d)", rc);
    /* errors come back as codes, to be reported as ours */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    MPI_Comm local;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m->rank, MPI_INFO_NULL,
                            &local) == MPI_SUCCESS) {
        MPI_Comm_rank(local, &m->local_rank);
        MPI_Comm_size(local, &m->local_size);
        MPI_Comm_free(&local);
    }
    world = *m;
    joined = 1;
    atexit(leave_at_exit);
    return QR_OK;
}

/* Whether this process (0) told the others to stop: each then has a stop
 * notice to take before it leaves, or MPI warns of an unmatched message. */
static int stop_sent;

/* Leaves the job (MPI_Finalize) as the process exits. */
static void leave_at_exit(void)
{
    const job_mpi *m = &world;
    if (m->size > 1) {
        int sent = stop_sent;
        MPI_Bcast(&sent, 1, MPI_INT, 0, MPI_COMM_WORLD);
        int32_t notice;
        if (sent && m->rank != 0)
            MPI_Recv(&notice, 1, MPI_INT32_T, 0, TAG_STOP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
}

int job_mpi_max(const job_mpi *m, int v)
{
    int out = v;
    if (m->size > 1)
        MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

/* A message: two int32 (kind, status), then the bytes. */
#define HEAD 8

qr_status job_mpi_send(const job_mpi *m, int kind, int status, const void *data, size_t len,
                       qr_error *err)
{
    (void)m;
    if (len > (size_t)INT32_MAX - HEAD)
        return qr_fail(err, QR_ERR_INVALID, "MPI: a message of %zu bytes is too large", len);
    unsigned char *buf = malloc(HEAD + len);
    if (!buf)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory for a message of %zu bytes", len);
    const int32_t head[2] = {kind, status};
    memcpy(buf, head, HEAD);
    if (len)
        memcpy(buf + HEAD, data, len);
    int rc = MPI_Send(buf, (int)(HEAD + len), MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
    free(buf);
    return rc == MPI_SUCCESS ? QR_OK : mpi_fail(err, rc, "sending to process 0");
}

qr_status job_mpi_recv(const job_mpi *m, int from, int *sender, int *kind, int *status,
                       void **data, size_t *len, qr_error *err)
{
    (void)m;
    *data = NULL;
    *len = 0;
    MPI_Status ms;
    int rc = MPI_Probe(from < 0 ? MPI_ANY_SOURCE : from, TAG_DATA, MPI_COMM_WORLD, &ms);
    int count = 0;
    if (rc == MPI_SUCCESS)
        rc = MPI_Get_count(&ms, MPI_BYTE, &count);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, "waiting for a message");
    if (count < HEAD)
        return qr_fail(err, QR_ERR_IO, "MPI: a message of %d bytes from process %d", count,
                       ms.MPI_SOURCE);
    unsigned char *buf = malloc((size_t)count);
    if (!buf)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory for a message of %d bytes", count);
    rc = MPI_Recv(buf, count, MPI_BYTE, ms.MPI_SOURCE, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        free(buf);
        return mpi_fail(err, rc, "receiving a message");
    }
    int32_t head[2];
    memcpy(head, buf, HEAD);
    *sender = ms.MPI_SOURCE;
    *kind = head[0];
    *status = head[1];
    *len = (size_t)count - HEAD;
    if (*len) {
        memmove(buf, buf + HEAD, *len);
        *data = buf;
    } else {
        free(buf);
    }
    return QR_OK;
}

void job_mpi_stop_all(const job_mpi *m)
{
    static const int32_t none = 0;
    stop_sent = 1;
    for (int r = 1; r < m->size; r++) {
        MPI_Request req;
        if (MPI_Isend(&none, 1, MPI_INT32_T, r, TAG_STOP, MPI_COMM_WORLD, &req) == MPI_SUCCESS)
            MPI_Request_free(&req);
    }
}

bool job_mpi_stopped(const job_mpi *m)
{
    if (m->rank == 0 || m->size < 2)
        return false;
    int flag = 0;
    MPI_Iprobe(0, TAG_STOP, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    return flag != 0;
}

#else /* no MPI in this build */

qr_status job_mpi_start(job_mpi *m, qr_error *err)
{
    single(m);
    /* a job of one process (or a launcher's environment inherited by a
     * lone run) is no different from no launcher */
    static const char *sizes[] = {"PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE"};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const char *v = getenv(sizes[i]);
        if (v && atoi(v) > 1)
            return qr_fail(err, QR_ERR_INVALID,
                           "started as one of %d MPI processes, but built without MPI "
                           "(configure with -DQR_MPI=ON)",
                           atoi(v));
    }
    return QR_OK;
}

int job_mpi_max(const job_mpi *m, int v)
{
    (void)m;
    return v;
}

qr_status job_mpi_send(const job_mpi *m, int kind, int status, const void *data, size_t len,
                       qr_error *err)
{
    (void)m, (void)kind, (void)status, (void)data, (void)len;
    return qr_fail(err, QR_ERR_INVALID, "no other process to send to");
}

qr_status job_mpi_recv(const job_mpi *m, int from, int *sender, int *kind, int *status,
                       void **data, size_t *len, qr_error *err)
{
    (void)m, (void)from, (void)sender, (void)kind, (void)status;
    *data = NULL;
    *len = 0;
    return qr_fail(err, QR_ERR_INVALID, "no other process to receive from");
}

void job_mpi_stop_all(const job_mpi *m)
{
    (void)m;
}

bool job_mpi_stopped(const job_mpi *m)
{
    (void)m;
    return false;
}

#endif
