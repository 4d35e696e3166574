/* scene_gpu.cu — uploading a scene to the GPU and reading it back. */
#include "scene/scene_gpu.h"
#include "common/cuda_check.h"

#include <stdlib.h>

/* Device twin of a host array: same offset inside the block. */
static float *twin(const qr_scene *s, float *dev_block, const float *host_ptr)
{
    return host_ptr ? dev_block + (host_ptr - s->block) : NULL;
}

extern "C" qr_status qr_gpu_scene_upload(const qr_scene *s, qr_gpu_scene **out, qr_error *err)
{
    *out = NULL;
    qr_gpu_scene *g = (qr_gpu_scene *)calloc(1, sizeof *g);
    if (!g) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    g->n = s->n;
    g->shading = s->shading;
    g->anim = s->anim;
    g->steps = s->steps;
    g->block_floats = s->block_floats;
    size_t bytes = s->block_floats * sizeof(float);
    cudaError_t e = cudaMalloc((void **)&g->block, bytes ? bytes : sizeof(float));
    if (e != cudaSuccess) {
        cudaGetLastError();
        free(g);
        return qr_fail(err, qr_cuda_status(e), "uploading %d circles needs %zu bytes of GPU memory: %s",
                       s->n, bytes, cudaGetErrorString(e));
    }
    e = cudaMemcpy(g->block, s->block, bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        cudaFree(g->block);
        free(g);
        return qr_fail(err, qr_cuda_status(e), "uploading the scene: %s", cudaGetErrorString(e));
    }
    g->x = twin(s, g->block, s->x);
    g->y = twin(s, g->block, s->y);
    g->z = twin(s, g->block, s->z);
    g->r = twin(s, g->block, s->r);
    g->red = twin(s, g->block, s->red);
    g->green = twin(s, g->block, s->green);
    g->blue = twin(s, g->block, s->blue);
    g->vx = twin(s, g->block, s->vx);
    g->vy = twin(s, g->block, s->vy);
    g->vz = twin(s, g->block, s->vz);
    g->x0 = twin(s, g->block, s->x0);
    g->y0 = twin(s, g->block, s->y0);
    g->vx0 = twin(s, g->block, s->vx0);
    g->vy0 = twin(s, g->block, s->vy0);
    *out = g;
    return QR_OK;
}

extern "C" void qr_gpu_scene_free(qr_gpu_scene *g)
{
    if (!g) return;
    cudaFree(g->block);
    free(g);
}

extern "C" int32_t qr_gpu_scene_count(const qr_gpu_scene *g)
{
    return g->n;
}

extern "C" qr_status qr_gpu_scene_download(const qr_gpu_scene *g, qr_scene *s, qr_error *err)
{
    if (s->n != g->n || s->block_floats != g->block_floats || s->anim != g->anim)
        return qr_fail(err, QR_ERR_INVALID, "scene download: host scene does not match the device scene");
    QR_CUDA_TRY(err, cudaMemcpy(s->block, g->block, g->block_floats * sizeof(float),
                                cudaMemcpyDeviceToHost));
    s->steps = g->steps;
    return QR_OK;
}
