/*
 * Mesa 25's lavapipe, the Vulkan driver here that imports dma-bufs (a
 * memfd is mapped like one): setup.sh unpacks it from bookworm-backports
 * into the plain build's private prefix mesa25/, which meson names in
 * VITRAIL_MESA25 (this build's) and VITRAIL_MESA25_PLAIN (the plain
 * build's, for the sanitizer builds beside it).
 */
#ifndef TESTS_MESA25_H
#define TESTS_MESA25_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The absolute path of Mesa 25's libvulkan_lvp.so into path; false when
 * neither prefix has it. */
static inline bool mesa25_lavapipe(char path[PATH_MAX]) {
	const char *roots[] = { getenv("VITRAIL_MESA25"),
		getenv("VITRAIL_MESA25_PLAIN") };
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		char lib[PATH_MAX];
		if (roots[i] == NULL ||
				snprintf(lib, sizeof(lib),
						"%s/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so",
						roots[i]) >= (int)sizeof(lib) ||
				realpath(lib, path) == NULL) {
			continue;
		}
		return true;
	}
	return false;
}

/* An ICD manifest for it (the loader reads only files named *.json). */
static inline void mesa25_write_icd(FILE *f, const char *lavapipe) {
	fprintf(f,
			"{\"file_format_version\": \"1.0.0\", \"ICD\": "
			"{\"library_path\": \"%s\", \"api_version\": \"1.4.305\"}}\n",
			lavapipe);
}

#endif
