/*
 * The classic sequential peer: the same scenes replayed every frame
 * through Cairo's image backend (pixman, one thread), one image surface
 * per output. Blurred shadows are drawn the way a Cairo application does
 * it: the shape into an A8 surface, three box-blur passes each way, then a
 * mask. Text goes through Cairo's toy font API (fontconfig + FreeType).
 *
 * Built only when Cairo is found (BENCH_HAVE_CAIRO); otherwise
 * cairo_peer_create() returns NULL.
 */
#ifndef BENCH_CAIRO_PEER_H
#define BENCH_CAIRO_PEER_H

#include <stdbool.h>
#include <stdint.h>
#include "scene.h"

struct cairo_peer;

bool cairo_peer_available(void);
struct cairo_peer *cairo_peer_create(struct bench_scene *scene);
void cairo_peer_destroy(struct cairo_peer *peer); /* accepts NULL */
/* Empty Cairo's caches before a cold frame: the scene's image surfaces
 * and Cairo's static data (font and glyph caches). No peer may exist. */
void cairo_peer_cold(struct bench_scene *scene);
/* Draw every output of the scene's current state; false on error. */
bool cairo_peer_render(struct cairo_peer *peer);
/* The last frame of output i (BGRA8 premultiplied). */
const void *cairo_peer_pixels(struct cairo_peer *peer, size_t output,
		int32_t *stride);

#endif
