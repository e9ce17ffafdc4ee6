/* A fixed getrandom(2) for the fuzz smoke (fuzz/run.sh --smoke), loaded
 * with LD_PRELOAD into the fuzz target alone.
 *
 * Rust's HashMap seeds its hasher from getrandom, so the order in which a
 * map stores its keys, and with it the coverage libFuzzer sees, differs
 * from run to run; libFuzzer keeps an input when its coverage is new, so
 * the inputs a smoke run tries after the seeds differed too, on every
 * machine and every run. With the same bytes on every call (every thread
 * gets the same keys, whatever the order of the calls) a smoke run tries
 * the same inputs anywhere. The long runs keep the real random source:
 * they look for orders that break a promise. */
#include <stddef.h>
#include <sys/types.h>

ssize_t getrandom(void *buf, size_t len, unsigned int flags) {
    unsigned char *out = buf;
    unsigned long x = 0x9e3779b97f4a7c15ul;
    (void)flags;
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out[i] = (unsigned char)(x >> 24);
    }
    return (ssize_t)len;
}
