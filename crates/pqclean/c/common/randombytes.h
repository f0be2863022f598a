#ifndef PQBENCH_RANDOMBYTES_H
#define PQBENCH_RANDOMBYTES_H
/* pqbench's own: PQClean's code draws its randomness through randombytes(),
 * which pqbench-pqclean implements in Rust (src/lib.rs) from the generator
 * the caller hands it, as the suite does for its other implementations.
 * Renamed so that it cannot meet a host library's function of that name. */
#include <stddef.h>
#include <stdint.h>

#define randombytes pqbench_pqclean_randombytes
int randombytes(uint8_t *output, size_t n);

#endif
