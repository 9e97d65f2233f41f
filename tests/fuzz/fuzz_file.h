/*
 * For harnesses of parsers that read a file by path: the input as an
 * anonymous file, named /proc/self/fd/<fd>.
 */
#ifndef VITRAIL_TESTS_FUZZ_FILE_H
#define VITRAIL_TESTS_FUZZ_FILE_H

#define _GNU_SOURCE // memfd_create
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* A memfd holding data; its path goes to path. -1 when it cannot be made
 * (the harness then skips the input). */
static inline int fuzz_file(const uint8_t *data, size_t size, const char *name,
		char *path, size_t path_size) {
	int fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0) {
		return -1;
	}
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	snprintf(path, path_size, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
