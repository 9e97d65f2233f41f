/*
 * The Vulkan-vs-reference tests' Check fixture: a renderer and a tree per
 * test.
 */
#ifndef TESTS_RENDER_FIXTURE_H
#define TESTS_RENDER_FIXTURE_H

#include "vulkan_test.h"

extern struct vr_renderer *renderer;
extern struct vr_tree *tree;
extern struct vr_node *root;

/* A renderer (with the validation layer whenever it is installed, unless
 * VITRAIL_TEST_NO_VALIDATION is set) and an empty tree; log_errors reset. */
void setup(void);
void teardown(void);
void assert_no_errors(void);

#endif
