/* Configure-time probe (tests/fuzz/meson.build): does clang link a
 * libFuzzer target with ASan and UBSan? */
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	(void)data, (void)size;
	return 0;
}
