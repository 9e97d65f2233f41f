/*
 * The CPU backend's table of x / 255.0f (cpu_pixels.h), filled once: a
 * file of its own that every file of the backend reads and that calls
 * none of them.
 */
#include "cpu_private.h"
#include "cpu_pixels.h"

/* x / 255.0f for every byte: the same floats as the division (shared,
 * written once before any worker starts). */
float cpu_unit8[256];
static pthread_once_t unit8_once = PTHREAD_ONCE_INIT;

static void unit8_init(void) {
	for (int i = 0; i < 256; i++) {
		cpu_unit8[i] = (float)i / 255.0f;
	}
}

void cpu_unit8_init(void) {
	pthread_once(&unit8_once, unit8_init);
}
