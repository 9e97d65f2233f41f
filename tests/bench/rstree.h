/*
 * Importer of OpenHarmony RenderService tree dumps (the Spars artifact's
 * rstree/NAME-M70.txt), see shared/scenes/README.md for the format.
 *
 * Each dumped node becomes a bench_node positioned at its Bounds x/y
 * (relative to its parent); DISPLAY_NODE and SURFACE_NODE clip to their
 * bounds. Content becomes a display list in the node's local coordinates:
 *   Rect / CornerRadius[tl tr br bl] / Circle + Paint: [0xAARRGGBB]
 *                      -> a filled rect / rounded rect / ellipse
 *   Paint alone        -> a filled rect
 *   Image: "file"      -> the decoded file scaled to the bounds (clipped to
 *                         the rounded rect when CornerRadius is given); a
 *                         missing or undecodable file -> a grey placeholder
 *                         rect and one warning per file name per process
 *   Text: ["utf-8", "font.ttf"size] + Paint -> text, baseline at
 *                         0.93 * size (the font's ascent) below the top
 * Fonts: DroidSans.ttf -> "DejaVu Sans", DancingScript-Regular.ttf ->
 * "DejaVu Serif", anything else -> "DejaVu Sans" with a warning.
 *
 * Quirks handled: full-width commas (U+FF0C) as separators, `//` comments
 * (whole lines or trailing; never inside quotes), repeated ids (ids are
 * never used as keys), commas inside quoted text, `-inf` bounds (no
 * offset), an attribute name followed by a space ("CornerRadius [..]"),
 * 6- or 7-digit colours (missing digits are taken as 'f', with a
 * warning), indentation that is not a multiple of two (depth follows the
 * column of '|').
 *
 * Malformed values are repaired or dropped with a warning each time (the
 * node named): Bounds with other than 4 values (a fifth and later values
 * dropped; fewer: no bounds), non-finite bounds (but RS_NODE's), negative
 * sizes; CornerRadius with 1-3 values (the last repeated), more than 4,
 * negative or non-finite radii (0); a Paint, Image or Text that cannot be
 * read; a second Image; Text without a font or a positive size.
 *
 * The clear colour (scene->clear) is the root's background: the Paint of
 * RS_NODE or of the first DISPLAY_NODE, opaque; white when neither paints
 * (OpenHarmony windows are white unless they paint).
 */
#ifndef BENCH_RSTREE_H
#define BENCH_RSTREE_H

#include <stddef.h>
#include "scene.h"

struct rstree_info {
	size_t lines; /* node lines read */
	size_t comment_lines; /* node lines commented out */
	size_t duplicate_ids;
	size_t fullwidth_commas;
	size_t missing_images; /* draws of missing/undecodable files */
	size_t malformed; /* values repaired or dropped (each warned) */
};

/* Load a dump; texture_dir holds the images it names. NULL only when the
 * file cannot be read or memory runs out (with a message). */
struct bench_scene *rstree_load(const char *path, const char *texture_dir,
		struct rstree_info *info);

/* Map a dump's font file name to an installed family. */
const char *rstree_font_family(const char *font_file, bool *known);

#endif
