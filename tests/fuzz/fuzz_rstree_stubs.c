/*
 * Stubs for fuzz_rstree.c: the renderer entry points that the benchmark's
 * scene model (tests/bench/scene.c) calls to realise a scene as vr_nodes
 * and record its display lists. rstree_load never realises a scene, so
 * none of these runs; each aborts (a crash the fuzzer reports) if one
 * ever does. They are declared without the renderer's headers: only their
 * names matter to the linker, and none returns.
 */
#include <stdio.h>
#include <stdlib.h>

#define UNREACHED(name) \
	void name(void); \
	void name(void) { \
		fprintf(stderr, "fuzz-rstree: %s reached\n", #name); \
		abort(); \
	}

UNREACHED(vr_canvas_begin)
UNREACHED(vr_canvas_clip_rect)
UNREACHED(vr_canvas_clip_rrect)
UNREACHED(vr_canvas_draw_ellipse)
UNREACHED(vr_canvas_draw_image)
UNREACHED(vr_canvas_draw_line)
UNREACHED(vr_canvas_draw_path)
UNREACHED(vr_canvas_draw_polyline)
UNREACHED(vr_canvas_draw_rect)
UNREACHED(vr_canvas_draw_rrect)
UNREACHED(vr_canvas_draw_shadow)
UNREACHED(vr_canvas_draw_text)
UNREACHED(vr_canvas_finish)
UNREACHED(vr_canvas_restore)
UNREACHED(vr_canvas_rotate)
UNREACHED(vr_canvas_save)
UNREACHED(vr_canvas_scale)
UNREACHED(vr_canvas_translate)
UNREACHED(vr_display_list_unref)
UNREACHED(vr_node_create)
UNREACHED(vr_node_damage_content)
UNREACHED(vr_node_parent)
UNREACHED(vr_node_set_clip)
UNREACHED(vr_node_set_display_list)
UNREACHED(vr_node_set_opacity)
UNREACHED(vr_node_set_parent)
UNREACHED(vr_node_set_transform)
UNREACHED(vr_tree_create)
UNREACHED(vr_tree_destroy)
UNREACHED(vr_tree_root)
