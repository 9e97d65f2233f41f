/*
 * The renderer's VkPipelineCache and the file that keeps it between runs:
 * $XDG_CACHE_HOME/vitrail/pipeline-cache.bin, or $HOME/.cache/vitrail/…
 * when XDG_CACHE_HOME is unset; no file when neither is set, when the
 * directory cannot be made or written, or with VITRAIL_PIPELINE_CACHE=0
 * (tests that must not depend on earlier runs). The cache itself exists
 * either way: every pipeline is created through it.
 *
 * A file is used only when its header (VkPipelineCacheHeaderVersionOne:
 * header size, version, vendorID, deviceID, pipelineCacheUUID) matches
 * this device and it is not truncated; otherwise it is ignored (a debug
 * message says why) and replaced at the next save. Saving writes a
 * temporary file next to it and renames it over the old one, so a crash
 * or a second vitrail writing at the same time never leaves a torn file.
 *
 * Threads: init, save and finish run on the caller's thread (renderer
 * create, warm, destroy). The VkPipelineCache is used by any worker
 * through vkCreateGraphicsPipelines: Vulkan synchronises a cache
 * internally (it is not created EXTERNALLY_SYNCHRONIZED).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "vk_private.h"

#define CACHE_DIR "vitrail"
#define CACHE_FILE "pipeline-cache.bin"
/* A cache file larger than this is not ours (or not sane): ignored. */
#define CACHE_MAX_SIZE (64u << 20)

struct vr_pipeline_cache_file {
	char *dir; /* .../vitrail */
	char *path; /* .../vitrail/pipeline-cache.bin */
	size_t saved_size; /* of the data read or last written; 0: none */
};

/* "a" + "/" + "b", malloc'd. */
static char *path_join(const char *a, const char *b) {
	size_t len = strlen(a) + 1 + strlen(b) + 1;
	char *out = malloc(len);
	if (out != NULL) {
		snprintf(out, len, "%s/%s", a, b);
	}
	return out;
}

static bool make_dir(const char *path) {
	return mkdir(path, 0700) == 0 || errno == EEXIST;
}

/* The cache directory, created when missing; NULL when there is none. */
static char *cache_dir(void) {
	const char *xdg = getenv("XDG_CACHE_HOME");
	char *base = NULL;
	if (xdg != NULL && xdg[0] == '/') {
		if (!make_dir(xdg)) {
			vr_log(VR_LOG_DEBUG, "pipeline cache: cannot create %s: %s", xdg,
					strerror(errno));
			return NULL;
		}
		base = strdup(xdg);
	} else {
		const char *home = getenv("HOME");
		if (home == NULL || home[0] != '/') {
			vr_log(VR_LOG_DEBUG,
					"pipeline cache: neither XDG_CACHE_HOME "
					"nor HOME is set, no cache file");
			return NULL;
		}
		char *home_cache = path_join(home, ".cache");
		if (home_cache != NULL && !make_dir(home_cache)) {
			vr_log(VR_LOG_DEBUG, "pipeline cache: cannot create %s: %s",
					home_cache, strerror(errno));
			free(home_cache);
			return NULL;
		}
		base = home_cache;
	}
	if (base == NULL) {
		return NULL;
	}
	char *dir = path_join(base, CACHE_DIR);
	free(base);
	if (dir == NULL) {
		return NULL;
	}
	if (!make_dir(dir) || access(dir, W_OK | X_OK) != 0) {
		vr_log(VR_LOG_DEBUG, "pipeline cache: %s is not writable: %s", dir,
				strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
}

/* The file's contents (malloc'd, *size bytes); NULL when absent or
 * unreadable. */
static void *read_file(const char *path, size_t *size) {
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		if (errno != ENOENT) {
			vr_log(VR_LOG_DEBUG, "pipeline cache: cannot open %s: %s", path,
					strerror(errno));
		}
		return NULL;
	}
	void *data = NULL;
	struct stat st;
	if (fstat(fileno(f), &st) != 0 || st.st_size <= 0 ||
			(unsigned long long)st.st_size > CACHE_MAX_SIZE) {
		vr_log(VR_LOG_DEBUG,
				"pipeline cache: %s: empty or too large, "
				"ignored",
				path);
		goto out;
	}
	*size = (size_t)st.st_size;
	data = malloc(*size);
	if (data != NULL && fread(data, 1, *size, f) != *size) {
		vr_log(VR_LOG_DEBUG, "pipeline cache: cannot read %s", path);
		free(data);
		data = NULL;
	}
out:
	fclose(f);
	return data;
}

static uint32_t read_u32(const uint8_t *p) {
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

bool vr_pipeline_cache_data_valid(VkPhysicalDevice phdev, const void *data,
		size_t size, const char *what) {
	/* VkPipelineCacheHeaderVersionOne: 4 + 4 + 4 + 4 + VK_UUID_SIZE */
	const size_t header = 16 + VK_UUID_SIZE;
	const uint8_t *p = data;
	if (size < header) {
		vr_log(VR_LOG_DEBUG,
				"pipeline cache: %s: truncated header (%zu "
				"bytes), ignored",
				what, size);
		return false;
	}
	uint32_t header_size = read_u32(p);
	uint32_t version = read_u32(p + 4);
	if (header_size < header || header_size > size ||
			version != VK_PIPELINE_CACHE_HEADER_VERSION_ONE) {
		vr_log(VR_LOG_DEBUG,
				"pipeline cache: %s: header size %u, version "
				"%u, file %zu bytes: ignored",
				what, header_size, version, size);
		return false;
	}
	VkPhysicalDeviceProperties props;
	vkGetPhysicalDeviceProperties(phdev, &props);
	if (read_u32(p + 8) != props.vendorID ||
			read_u32(p + 12) != props.deviceID ||
			memcmp(p + 16, props.pipelineCacheUUID, VK_UUID_SIZE) != 0) {
		vr_log(VR_LOG_DEBUG,
				"pipeline cache: %s: written for another "
				"device or driver (vendor 0x%x, device 0x%x), ignored",
				what, read_u32(p + 8), read_u32(p + 12));
		return false;
	}
	return true;
}

static void file_free(struct vr_pipeline_cache_file *file) {
	if (file != NULL) {
		free(file->dir);
		free(file->path);
		free(file);
	}
}

void vr_pipeline_cache_init(struct vr_renderer *renderer) {
	struct vr_pipeline_cache_file *file = NULL;
	const char *env = getenv("VITRAIL_PIPELINE_CACHE");
	bool disk = env == NULL || strcmp(env, "0") != 0;
	if (disk) {
		file = calloc(1, sizeof(*file));
		if (file != NULL) {
			file->dir = cache_dir();
			file->path =
					file->dir != NULL ? path_join(file->dir, CACHE_FILE) : NULL;
		}
		if (file == NULL || file->path == NULL) {
			file_free(file);
			file = NULL;
		}
	}
	void *data = NULL;
	size_t size = 0;
	if (file != NULL) {
		data = read_file(file->path, &size);
		if (data != NULL &&
				!vr_pipeline_cache_data_valid(renderer->phdev, data, size,
						file->path)) {
			free(data);
			data = NULL;
		}
	}
	VkPipelineCacheCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
		.initialDataSize = data != NULL ? size : 0,
		.pInitialData = data,
	};
	VkResult res = vkCreatePipelineCache(renderer->device, &info, NULL,
			&renderer->pipeline_cache);
	if (res != VK_SUCCESS && data != NULL) {
		/* the driver refused the data after all: start empty */
		vr_log(VR_LOG_DEBUG,
				"pipeline cache: %s refused by the driver: "
				"%s",
				file->path, vr_vk_result_str(res));
		free(data);
		data = NULL;
		info.initialDataSize = 0;
		info.pInitialData = NULL;
		res = vkCreatePipelineCache(renderer->device, &info, NULL,
				&renderer->pipeline_cache);
	}
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR,
				"vkCreatePipelineCache failed: %s (pipelines "
				"are created without a cache)",
				vr_vk_result_str(res));
		renderer->pipeline_cache = VK_NULL_HANDLE;
		file_free(file);
		free(data);
		return;
	}
	if (file != NULL) {
		file->saved_size = data != NULL ? size : 0;
		vr_log(VR_LOG_DEBUG, "pipeline cache: %s, %zu bytes loaded", file->path,
				data != NULL ? size : 0);
	}
	free(data);
	renderer->pipeline_cache_file = file;
}

/* Write data to path atomically: a temporary file next to it, synced,
 * then renamed over it. */
static bool write_atomically(const char *path, const void *data, size_t size) {
	size_t len = strlen(path) + sizeof(".XXXXXX");
	char *tmp = malloc(len);
	if (tmp == NULL) {
		return false;
	}
	snprintf(tmp, len, "%s.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		vr_log(VR_LOG_DEBUG, "cache: cannot create %s: %s", tmp,
				strerror(errno));
		free(tmp);
		return false;
	}
	const uint8_t *p = data;
	size_t left = size;
	bool ok = true;
	while (ok && left > 0) {
		ssize_t n = write(fd, p, left);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		ok = n > 0;
		if (ok) {
			p += n;
			left -= (size_t)n;
		}
	}
	ok = ok && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	ok = ok && rename(tmp, path) == 0;
	if (!ok) {
		vr_log(VR_LOG_DEBUG, "cache: cannot write %s: %s", path,
				strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return ok;
}

char *vr_cache_path(struct vr_renderer *renderer, const char *name) {
	const struct vr_pipeline_cache_file *file = renderer->pipeline_cache_file;
	return file != NULL ? path_join(file->dir, name) : NULL;
}

void *vr_cache_read(struct vr_renderer *renderer, const char *name,
		size_t *size) {
	char *path = vr_cache_path(renderer, name);
	void *data = path != NULL ? read_file(path, size) : NULL;
	free(path);
	return data;
}

bool vr_cache_write(struct vr_renderer *renderer, const char *name,
		const void *data, size_t size) {
	char *path = vr_cache_path(renderer, name);
	bool ok = path != NULL && write_atomically(path, data, size);
	free(path);
	return ok;
}

void vr_pipeline_cache_save(struct vr_renderer *renderer) {
	struct vr_pipeline_cache_file *file = renderer->pipeline_cache_file;
	if (file == NULL || renderer->pipeline_cache == VK_NULL_HANDLE) {
		return;
	}
	size_t size = 0;
	VkResult res = vkGetPipelineCacheData(renderer->device,
			renderer->pipeline_cache, &size, NULL);
	/* the cache only grows: the same size is the same contents */
	if (res != VK_SUCCESS || size == 0 || size == file->saved_size) {
		return;
	}
	void *data = malloc(size);
	if (data == NULL) {
		return;
	}
	res = vkGetPipelineCacheData(renderer->device, renderer->pipeline_cache,
			&size, data);
	if (res == VK_SUCCESS && size > 0 &&
			write_atomically(file->path, data, size)) {
		file->saved_size = size;
		vr_log(VR_LOG_DEBUG, "pipeline cache: %zu bytes written to %s", size,
				file->path);
	}
	free(data);
}

void vr_pipeline_cache_finish(struct vr_renderer *renderer) {
	if (renderer->device == VK_NULL_HANDLE) {
		return;
	}
	vr_pipeline_cache_save(renderer);
	if (renderer->pipeline_cache != VK_NULL_HANDLE) {
		vkDestroyPipelineCache(renderer->device, renderer->pipeline_cache,
				NULL);
		renderer->pipeline_cache = VK_NULL_HANDLE;
	}
	file_free(renderer->pipeline_cache_file);
	renderer->pipeline_cache_file = NULL;
}
