/* quadrender/error.h — status codes and error messages.
 *
 * Every library call that can fail returns a qr_status and, when the caller
 * passes a non-NULL qr_error, a one-line human-readable message in err->msg.
 * The library never prints and never exits: the caller decides what to show.
 *
 *     qr_error err;
 *     if (qr_scene_load("rand10k", 0, &scene, &err) != QR_OK)
 *         fprintf(stderr, "quadrender: %s\n", err.msg);
 */
#ifndef QUADRENDER_ERROR_H
#define QUADRENDER_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum qr_status {
    QR_OK = 0,
    QR_ERR_INVALID = 1,    /* bad argument or option value */
    QR_ERR_IO = 2,         /* a file cannot be opened, read or written */
    QR_ERR_PARSE = 3,      /* malformed scene file */
    QR_ERR_NOMEM = 4,      /* host memory exhausted */
    QR_ERR_NO_GPU = 5,     /* no usable GPU: no driver, no device, wrong arch */
    QR_ERR_GPU_NOMEM = 6,  /* device memory exhausted or the index would not fit */
    QR_ERR_CUDA = 7,       /* any other CUDA failure */
    QR_ERR_CANCELLED = 8   /* a callback cancelled the work (quadrender/job.h) */
} qr_status;

#define QR_ERROR_MSG_MAX 512

typedef struct qr_error {
    qr_status status;
    char msg[QR_ERROR_MSG_MAX];
} qr_error;

/* Records status and a printf-style message in err (if non-NULL); returns status. */
qr_status qr_fail(qr_error *err, qr_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Resets err to QR_OK with an empty message. */
void qr_error_clear(qr_error *err);

/* A short constant name for a status ("ok", "invalid argument", ...). */
const char *qr_status_str(qr_status status);

#ifdef __cplusplus
}
#endif
#endif
