/*
 * libFuzzer harness: the config parser (compositor/config.c) on arbitrary
 * file contents. The bytes go into a memfd that vt_config_load opens by
 * its /proc path, as it would open ~/.config/vitrail/config. A failed load
 * must leave the previous config untouched and say why; a successful one
 * must leave every string NUL-terminated and the numbers in range.
 */
#include "fuzz_file.h"
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool terminated(const char *s) {
	return memchr(s, '\0', VT_CONFIG_STR) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	char path[64];
	int fd = fuzz_file(data, size, "fuzz-config", path, sizeof(path));
	if (fd < 0) {
		return 0;
	}
	char err_buf[512];
	FILE *err = fmemopen(err_buf, sizeof(err_buf), "w");
	assert(err != NULL);

	struct vt_config before, config;
	vt_config_defaults(&before);
	config = before;
	bool ok = vt_config_load(&config, path, err);
	long err_len = ftell(err);
	fclose(err);
	close(fd);
	if (!ok) {
		assert(memcmp(&config, &before, sizeof(config)) == 0);
		assert(err_len > 0);
		return 0;
	}
	assert(terminated(config.xkb_rules) && terminated(config.xkb_model) &&
			terminated(config.xkb_layout) && terminated(config.xkb_variant) &&
			terminated(config.xkb_options));
	assert(config.mode == VT_MODE_DESKTOP || config.mode == VT_MODE_KIOSK);
	return 0;
}
