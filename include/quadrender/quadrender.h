/* quadrender/quadrender.h — the whole public API in one include:
 *
 *     #include <quadrender/quadrender.h>
 *
 * includes every public header of include/quadrender/ (docs/library.md, "The
 * API", says what each holds); a program may include the ones it uses
 * instead. It compiles as C11 and as C++; the
 * GPU's headers are there in every build: a build without CUDA answers
 * their calls with QR_ERR_NO_GPU.
 */
#ifndef QUADRENDER_QUADRENDER_H
#define QUADRENDER_QUADRENDER_H

#include "quadrender/error.h"
#include "quadrender/file.h"
#include "quadrender/floor.h"
#include "quadrender/gpu.h"
#include "quadrender/gpu_device.h"
#include "quadrender/gpu_index.h"
#include "quadrender/gpu_query.h"
#include "quadrender/gpu_render.h"
#include "quadrender/gpu_scene.h"
#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/job.h"
#include "quadrender/memory.h"
#include "quadrender/npy.h"
#include "quadrender/query.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/render_mode.h"
#include "quadrender/rng.h"
#include "quadrender/scene.h"
#include "quadrender/scene_map.h"
#include "quadrender/stats.h"
#include "quadrender/text.h"
#include "quadrender/threads.h"
#include "quadrender/tiles.h"

#endif
