/*
 * vitrail_test_v1 (test_control.c, --test only): what the test suite
 * controls and observes of the compositor.
 */
#ifndef VITRAIL_TEST_CONTROL_H
#define VITRAIL_TEST_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vt_server;
struct vt_output;

bool vt_test_init(struct vt_server *server);
void vt_test_finish(struct vt_server *server);
/* Called after every present: settle callbacks may complete. */
void vt_test_check_settled(struct vt_server *server);
/* stall_next_frame: the sleep owed by the next frame (0: none); taking
 * it clears it. */
uint32_t vt_test_take_stall_ms(struct vt_server *server);
/* The render time the next frame must take (slow_frames), in us; 0: as it
 * comes. */
uint32_t vt_test_take_frame_cost_us(struct vt_server *server);
/* A frame of output was presented: its pixels (the output buffer, data
 * NULL when not mapped) for hash_frames. */
void vt_test_frame_presented(struct vt_server *server, struct vt_output *output,
		uint64_t seq, const void *data, size_t stride, int32_t width,
		int32_t height);

#endif
