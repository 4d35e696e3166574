/* quadrender/gpu.h — everything of the GPU, one header a stage, each
 * implemented by its stage's gpu/ folder:
 *
 *   gpu_device.h   is there a usable GPU, which; page-locked host memory  (src/gpu)
 *   gpu_scene.h    the scene on the GPU                                    (src/scene/gpu)
 *   gpu_index.h    the quadtree index built on the GPU                     (src/quadtree/gpu)
 *   gpu_render.h   the renderer: images, bands, file rows, output          (src/render/gpu)
 *
 * A build without CUDA answers every one of them with QR_ERR_NO_GPU
 * (src/gpu/none.c).
 */
#ifndef QUADRENDER_GPU_H
#define QUADRENDER_GPU_H

#include "quadrender/gpu_device.h"
#include "quadrender/gpu_scene.h"
#include "quadrender/gpu_index.h"
#include "quadrender/gpu_render.h"

#endif
