/* test_memory.c — the host memory a process can still take
 * (quadrender/memory.h), and the checks that rest on it: an image refused
 * before it is allocated, bands sized to what is left. Criterion runs each
 * test in its own process, so an address-space limit set here ends with it.
 */
#include <stdint.h>
#include <sys/resource.h>

#include "quadrender/image.h"
#include "quadrender/memory.h"
#include "test_util.h"

#define MIB ((uint64_t)1 << 20)

/* The "<key>: <n> kB" line of /proc/meminfo, in bytes (0 if missing). */
static uint64_t meminfo(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    cr_assert(f);
    char line[256];
    unsigned long long kb = 0;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ':')
            sscanf(line + n + 1, "%llu", &kb);
    fclose(f);
    return (uint64_t)kb * 1024;
}

/* Limits this process's address space to what it maps now plus room. */
static void limit_address_space(uint64_t room)
{
    FILE *f = fopen("/proc/self/statm", "r");
    cr_assert(f);
    unsigned long long pages;
    cr_assert_eq(fscanf(f, "%llu", &pages), 1);
    fclose(f);
    struct rlimit rl;
    cr_assert_eq(getrlimit(RLIMIT_AS, &rl), 0);
    rl.rlim_cur = (rlim_t)(pages * (uint64_t)sysconf(_SC_PAGESIZE) + room);
    cr_assert_eq(setrlimit(RLIMIT_AS, &rl), 0);
}

Test(memory, at_most_what_the_machine_has)
{
    const uint64_t machine = meminfo("MemAvailable") + meminfo("SwapFree");
    const uint64_t avail = qr_host_memory_available();
    cr_assert_gt(avail, 0);
    if (machine > 0) /* both read at almost the same time: allow for what moved between */
        cr_assert_leq(avail, machine + 256 * MIB, "%llu > %llu", (unsigned long long)avail,
                      (unsigned long long)machine);
}

Test(memory, at_most_the_address_space_left)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("AddressSanitizer's shadow memory does not fit under an address-space limit");
#endif
    limit_address_space(256 * MIB);
    const uint64_t avail = qr_host_memory_available();
    cr_assert_leq(avail, 256 * MIB, "%llu", (unsigned long long)avail);
    cr_assert_geq(avail, 128 * MIB, "%llu", (unsigned long long)avail);
}

/* Under the limit, a request past it is QR_ERR_NOMEM naming the bytes,
 * and nothing is allocated. */
Test(memory, refusals_name_the_bytes)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("AddressSanitizer's shadow memory does not fit under an address-space limit");
#endif
    limit_address_space(256 * MIB);
    qr_error err;
    cr_assert_eq(qr_host_memory_check("a test", 64 * MIB, &err), QR_OK);
    cr_assert_eq(qr_host_memory_check("a test", 1024 * MIB, &err), QR_ERR_NOMEM);
    cr_assert(strstr(err.msg, "a test needs 1073741824 bytes (1.0 GiB) of host memory"), "%s",
              err.msg);

    cr_assert_eq(qr_image_check_fits(8192, 8192, 0, &err), QR_ERR_NOMEM);
    cr_assert(strstr(err.msg, "a 8192x8192 image needs 1073741824 bytes"), "%s", err.msg);
    /* extra bytes a pixel count too: 2048^2 x (16 + 64) = 320 MiB */
    cr_assert_eq(qr_image_check_fits(2048, 2048, 0, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_image_check_fits(2048, 2048, 64, &err), QR_ERR_NOMEM);
    cr_assert(strstr(err.msg, "335544320 bytes"), "%s", err.msg);

    qr_image *img = (qr_image *)&err;
    cr_assert_eq(qr_image_create(8192, 8192, &img, &err), QR_ERR_NOMEM);
    cr_assert_null(img);
    cr_assert(strstr(err.msg, "1073741824"), "%s", err.msg);

    void *p = &err;
    cr_assert_eq(qr_host_malloc("a buffer", (size_t)1024 * MIB, &p, &err), QR_ERR_NOMEM);
    cr_assert_null(p);
    cr_assert(strstr(err.msg, "a buffer needs 1073741824 bytes"), "%s", err.msg);
    cr_assert_eq(qr_host_malloc("a buffer", (size_t)MIB, &p, &err), QR_OK);
    cr_assert_not_null(p);
    free(p);
}

/* Bands: a QR_HOST_BAND_SHARE-th of what is left, within max_bytes, at
 * least min_rows, at most rows. */
Test(memory, band_rows_follow_the_budget)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("AddressSanitizer's shadow memory does not fit under an address-space limit");
#endif
    const uint64_t cap = 256 * MIB;
    /* rows of 1 MiB: unlimited, the cap (256 MiB) or a quarter of the machine */
    const int32_t free_rows = qr_host_band_rows(MIB, 1 << 20, 32, cap);
    cr_assert_leq(free_rows, 256);
    cr_assert_eq(qr_host_band_rows(MIB, 100, 32, cap) <= 100, true);
    cr_assert_eq(qr_host_band_rows(1, 10, 1, cap), 10);
    limit_address_space(200 * MIB);
    const int32_t rows = qr_host_band_rows(MIB, 1 << 20, 32, cap);
    cr_assert_leq(rows, 50, "%d rows of 1 MiB under 200 MiB", rows);
    cr_assert_geq(rows, 32);
    /* a row larger than the budget: min_rows still */
    cr_assert_eq(qr_host_band_rows(1024 * MIB, 100, 4, cap), 4);
}
