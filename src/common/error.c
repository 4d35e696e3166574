/* error.c — qr_error plumbing (see include/quadrender/error.h). */
#include "quadrender/error.h"

#include <stdarg.h>
#include <stdio.h>

qr_status qr_fail(qr_error *err, qr_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->status = status;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}

void qr_error_clear(qr_error *err)
{
    if (err) {
        err->status = QR_OK;
        err->msg[0] = '\0';
    }
}

const char *qr_status_str(qr_status status)
{
    switch (status) {
    case QR_OK: return "ok";
    case QR_ERR_INVALID: return "invalid argument";
    case QR_ERR_IO: return "i/o error";
    case QR_ERR_PARSE: return "parse error";
    case QR_ERR_NOMEM: return "out of host memory";
    case QR_ERR_NO_GPU: return "no usable GPU";
    case QR_ERR_GPU_NOMEM: return "out of GPU memory";
    case QR_ERR_CUDA: return "CUDA error";
    case QR_ERR_CANCELLED: return "cancelled";
    }
    return "unknown error";
}
