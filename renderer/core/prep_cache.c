/*
 * A node's preparation cache (prep_cache.h): freed by the tree with the
 * node, or once preparation has not used it for a while.
 */
#include <stdlib.h>
#include "prep_cache.h"

void vr_prep_cache_destroy(struct vr_prep_cache *cache) {
	if (cache == NULL) {
		return;
	}
	for (size_t i = 0; i < PREP_ENTRIES; i++) {
		free(cache->entries[i].prims);
	}
	free(cache);
}
