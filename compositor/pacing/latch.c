/* See latch.h. */
#include "pacing/latch.h"

#include <string.h>

bool vt_latch_push(struct vt_latch_queue *queue, uint32_t seq,
		uint64_t target_ns, bool fifo) {
	if (queue->len >= VT_LATCH_QUEUE_MAX) {
		return false;
	}
	queue->entries[queue->len++] = (struct vt_latch_entry){
		.seq = seq,
		.target_ns = fifo ? 0 : target_ns,
		.fifo = fifo,
	};
	return true;
}

bool vt_latch_push_barrier(struct vt_latch_queue *queue, uint32_t seq,
		uint64_t target_ns) {
	if (!vt_latch_push(queue, seq, target_ns, false)) {
		return false;
	}
	queue->entries[queue->len - 1].wait_barrier = true;
	return true;
}

void vt_latch_set_barrier(struct vt_latch_queue *queue, uint64_t display_ns) {
	queue->barrier = true;
	queue->barrier_ns = display_ns;
	queue->barrier_drawn = false;
	queue->barrier_undrawn = 0;
}

void vt_latch_drawn(struct vt_latch_queue *queue) {
	queue->barrier_drawn = true;
}

void vt_latch_frame(struct vt_latch_queue *queue, uint64_t display_ns) {
	if (!queue->barrier) {
		return;
	}
	if (queue->barrier_ns == 0) {
		queue->barrier_ns = display_ns; /* this frame shows it */
	} else if (queue->barrier_ns != display_ns) {
		/* a later frame: the commit was drawn, or this is the second
		 * frame that did not draw it (not shown) */
		queue->barrier_ns = display_ns;
		if (queue->barrier_drawn || ++queue->barrier_undrawn >= 2) {
			queue->barrier = false;
		}
	}
}

bool vt_latch_next_due(struct vt_latch_queue *queue, uint64_t display_ns,
		uint64_t period_ns, uint32_t *seq) {
	if (queue->len == 0) {
		return false;
	}
	const struct vt_latch_entry *head = &queue->entries[0];
	bool latched = queue->last_latch_ns == display_ns;
	if (head->fifo ? latched : head->target_ns > display_ns + period_ns / 2) {
		return false;
	}
	if (head->wait_barrier && queue->barrier) {
		return false;
	}
	*seq = head->seq;
	queue->last_latch_ns = display_ns;
	if (!head->fifo && head->target_ns != 0) {
		queue->latched_target_ns = head->target_ns;
	}
	memmove(&queue->entries[0], &queue->entries[1],
			(queue->len - 1) * sizeof(queue->entries[0]));
	queue->len--;
	return true;
}

uint64_t vt_latch_last_target(const struct vt_latch_queue *queue) {
	for (size_t i = queue->len; i > 0; i--) {
		if (!queue->entries[i - 1].fifo) {
			return queue->entries[i - 1].target_ns;
		}
	}
	return 0;
}

uint64_t vt_latch_queued_until(const struct vt_latch_queue *queue) {
	uint64_t last = vt_latch_last_target(queue);
	return last > queue->latched_target_ns ? last : queue->latched_target_ns;
}
