/* memory.c — host memory this process can still take (quadrender/memory.h).
 *
 * Three limits, each read from the kernel's files, the least of them kept:
 * the machine's available memory, the memory cgroup's room (at every level
 * from the process's cgroup up to the root, the tightest), and the
 * address-space limit less what is mapped. A file that is missing or does
 * not parse sets no limit: the answer errs towards allowing, and an
 * allocation the kernel then refuses is still the caller's QR_ERR_NOMEM.
 */
#define _GNU_SOURCE
#include "quadrender/memory.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* A limit cgroups write for "none" (v1's is a page-rounded INT64_MAX). */
#define NO_LIMIT ((uint64_t)1 << 62)

static uint64_t least(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* The first number in the file at path ("max" and anything unreadable:
 * false). */
static bool read_number(const char *path, uint64_t *out)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    unsigned long long v;
    bool ok = fscanf(f, "%llu", &v) == 1;
    fclose(f);
    if (ok)
        *out = v;
    return ok;
}

/* The value of the line "<key> <number>[ kB]" of the file at path, in
 * bytes when the line says kB. */
static bool read_keyed(const char *path, const char *key, uint64_t *out)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    char line[256];
    const size_t klen = strlen(key);
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0 || (line[klen] != ' ' && line[klen] != ':'))
            continue;
        char *end;
        unsigned long long v = strtoull(line + klen + 1, &end, 10);
        if (end == line + klen + 1)
            break;
        *out = strstr(end, "kB") ? (uint64_t)v * 1024 : (uint64_t)v;
        found = true;
    }
    fclose(f);
    return found;
}

/* MemAvailable plus SwapFree. */
static uint64_t machine_available(void)
{
    uint64_t avail, swap = 0;
    if (!read_keyed("/proc/meminfo", "MemAvailable", &avail))
        return UINT64_MAX;
    read_keyed("/proc/meminfo", "SwapFree", &swap);
    return avail + swap;
}

/* The room left in the cgroup folder dir: limit less usage, the page cache
 * it could drop counted as free. UINT64_MAX without a limit there. */
static uint64_t cgroup_room(const char *dir, bool v2)
{
    char path[4096];
    uint64_t limit, usage, cache = 0;
    snprintf(path, sizeof path, "%s/%s", dir, v2 ? "memory.max" : "memory.limit_in_bytes");
    if (!read_number(path, &limit) || limit >= NO_LIMIT)
        return UINT64_MAX;
    snprintf(path, sizeof path, "%s/%s", dir, v2 ? "memory.current" : "memory.usage_in_bytes");
    if (!read_number(path, &usage))
        return UINT64_MAX;
    snprintf(path, sizeof path, "%s/memory.stat", dir);
    read_keyed(path, v2 ? "inactive_file" : "total_inactive_file", &cache);
    usage = cache < usage ? usage - cache : 0;
    return usage < limit ? limit - usage : 0;
}

/* The tightest room from the cgroup folder root + rel up to root. */
static uint64_t cgroup_tree_room(const char *root, const char *rel, bool v2)
{
    char dir[4096];
    int n = snprintf(dir, sizeof dir, "%s%s", root, rel);
    if (n < 0 || (size_t)n >= sizeof dir)
        return UINT64_MAX;
    const size_t root_len = strlen(root);
    uint64_t room = UINT64_MAX;
    for (;;) {
        size_t len = strlen(dir);
        while (len > root_len && dir[len - 1] == '/')
            dir[--len] = '\0';
        room = least(room, cgroup_room(dir, v2));
        char *slash = strrchr(dir, '/');
        if (len <= root_len || !slash || (size_t)(slash - dir) < root_len)
            break;
        *slash = '\0';
    }
    return room;
}

/* The room of the process's memory cgroup (v1's memory controller, or
 * v2's unified hierarchy mounted at /sys/fs/cgroup). */
static uint64_t cgroup_available(void)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return UINT64_MAX;
    char line[4096];
    uint64_t room = UINT64_MAX;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        const char *controllers = c1 + 1, *rel = c2 + 1;
        if (controllers[0] == '\0') /* "0::/path": the unified hierarchy */
            room = least(room, cgroup_tree_room("/sys/fs/cgroup", rel, true));
        else if (strcmp(controllers, "memory") == 0 || strstr(controllers, "memory,") == controllers ||
                 strstr(controllers, ",memory"))
            room = least(room, cgroup_tree_room("/sys/fs/cgroup/memory", rel, false));
    }
    fclose(f);
    return room;
}

/* RLIMIT_AS less the address space mapped now. */
static uint64_t address_space_available(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    uint64_t pages;
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || !read_number("/proc/self/statm", &pages))
        return (uint64_t)rl.rlim_cur;
    uint64_t mapped = pages * (uint64_t)page;
    return mapped < (uint64_t)rl.rlim_cur ? (uint64_t)rl.rlim_cur - mapped : 0;
}

static _Atomic uint64_t budget;

void qr_host_memory_set_budget(uint64_t bytes)
{
    budget = bytes;
}

uint64_t qr_host_memory_budget(void)
{
    return budget;
}

/* The budget less what the process holds resident now. */
static uint64_t budget_available(void)
{
    const uint64_t b = budget;
    if (!b)
        return UINT64_MAX;
    uint64_t resident = 0;
    long page = sysconf(_SC_PAGESIZE);
    FILE *f = fopen("/proc/self/statm", "re");
    if (f) {
        unsigned long long s = 0, r = 0;
        if (fscanf(f, "%llu %llu", &s, &r) == 2 && page > 0) resident = (uint64_t)r * (uint64_t)page;
        fclose(f);
    }
    return resident < b ? b - resident : 0;
}

uint64_t qr_host_memory_available(void)
{
    return least(least(least(machine_available(), cgroup_available()), address_space_available()),
                 budget_available());
}

qr_status qr_host_memory_check(const char *what, uint64_t bytes, qr_error *err)
{
    const uint64_t room = qr_host_memory_available();
    if (bytes <= room)
        return QR_OK;
    const double gib = 1024.0 * 1024.0 * 1024.0;
    return qr_fail(err, QR_ERR_NOMEM,
                   "%s needs %llu bytes (%.1f GiB) of host memory; this process can take %llu "
                   "bytes (%.1f GiB)",
                   what, (unsigned long long)bytes, (double)bytes / gib, (unsigned long long)room,
                   (double)room / gib);
}

int32_t qr_host_band_rows(uint64_t row_bytes, int32_t rows, int32_t min_rows, uint64_t max_bytes)
{
    const uint64_t bytes = least(qr_host_memory_available() / QR_HOST_BAND_SHARE, max_bytes);
    uint64_t n = row_bytes ? bytes / row_bytes : (uint64_t)rows;
    if (n < (uint64_t)min_rows)
        n = (uint64_t)min_rows;
    return n > (uint64_t)rows ? rows : (int32_t)n;
}

qr_status qr_host_malloc(const char *what, size_t bytes, void **out, qr_error *err)
{
    *out = NULL;
    qr_status st = qr_host_memory_check(what, bytes, err);
    if (st != QR_OK)
        return st;
    *out = malloc(bytes ? bytes : 1);
    if (!*out)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory: %s needs %zu bytes", what, bytes);
    return QR_OK;
}
