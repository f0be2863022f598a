/* pqbench's own. PQClean's compat.h includes glibc's <features.h> for
 * __GNUC_PREREQ under GCC; newlib (arm-none-eabi-gcc's C library) has no
 * such header. Only the bare-metal builds put this folder on the include
 * path, so a host's glibc keeps its own. */
#ifndef PQBENCH_BARE_METAL_FEATURES_H
#define PQBENCH_BARE_METAL_FEATURES_H
#ifndef __GNUC_PREREQ
#define __GNUC_PREREQ(major, minor) \
    ((__GNUC__ << 16) + __GNUC_MINOR__ >= ((major) << 16) + (minor))
#endif
#endif
