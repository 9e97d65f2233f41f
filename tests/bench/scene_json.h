/*
 * Our own benchmark scenes: tests/scenes/NAME.json, read with json-c.
 *
 * A scene is data: a tree of nodes with display lists, plus a few
 * procedural constructs driven by the scene's seeded RNG so that large
 * scenes stay short. The format:
 *
 *   {
 *     "name": "desktop",           (default: the file name)
 *     "description": "...",
 *     "seed": 7,                   RNG seed (default 1)
 *     "output": [2560, 1440],      size of one output
 *     "outputs": 1,                that many outputs side by side, one
 *                                  vr_render job each; or a list of boxes
 *                                  [[x, y, w, h], ...] in root coordinates
 *     "clear": "#203040",
 *     "cold_samples": 3,           cold frames per mode (default: program)
 *     "images": { NAME: IMAGE },   NAME may end with '*' (a prefix)
 *     "templates": { NAME: NODE },
 *     "root": NODE  or  "nodes": [NODE, ...]
 *   }
 *
 *   IMAGE: {"file": "photo3.jpg"} (in the texture directory; missing: a
 *          generated "photo" of "size", with a warning) or
 *          {"generate": "gradient|noise|checker|photo|icon|video",
 *           "size": [w, h], "seed": n, "colors": [C, C]}; "video" images
 *          are rewritten every frame. An op naming an undeclared image
 *          with an extension loads that file from the texture directory.
 *
 *   NODE: {"use": TEMPLATE, ...keys overriding the template's},
 *         "name", "pos": [x, y], "scale": s | [sx, sy], "rotate": degrees,
 *         "clip": [x, y, w, h], "opacity": a,
 *         "animate": {"move": [dx, dy], "period": frames},
 *         "repeat": n, "step": [dx, dy], "wrap": columns,
 *         "row_step": [dx, dy]   (n copies, each offset),
 *         "draw": [OP, ...], "children": [NODE, ...]
 *
 *   OP (the key naming the op first):
 *     {"rect"|"rrect"|"ellipse": [x, y, w, h], "radius": r | [tl tr br bl],
 *      PAINT}
 *     {"line": [x0, y0, x1, y1], PAINT}
 *     {"polyline": [x, y, ...], "closed": bool, PAINT}
 *     {"walk": [x, y, w, h], "points": n, PAINT}       random-walk series
 *     {"squiggle": [x, y, w, h], "segments": n, PAINT}  random cubic path
 *     {"path": "M x y L x y Q cx cy x y C c1x c1y c2x c2y x y Z", PAINT}
 *     {"image": NAME, "dst": [x, y, w, h], "src": [..], "opacity": a,
 *      "radius": r}                                      (radius: clipped)
 *     {"text": STRING, "at": [x, y], FONT, "color": C}   (baseline at y)
 *     {"paragraph": [x, y, w, h], FONT, "color": C, "line_height": px,
 *      "vocab": "lorem|code|shell", "colors": [C, ...]} lines of random
 *                                  words; with "colors", runs per line
 *     {"shadow": [x, y, w, h], "radius": r, "blur": px, "color": C}
 *     {"random_prims": n, "area": [x, y, w, h]}
 *     {"save": true} {"restore": true} {"translate": [x, y]}
 *     {"scale": [sx, sy]} {"rotate": degrees} {"clip": [x, y, w, h],
 *      "radius": r}
 *     {"repeat": n, "step": .., "wrap": .., "row_step": .., "ops": [OP..]}
 *   PAINT: "fill": C and/or "stroke": C with "width", "join"
 *          (miter|round|bevel), "cap" (butt|round|square), "fill_rule"
 *          (nonzero|evenodd)
 *   FONT:  "font": family (default "DejaVu Sans"), "size", "weight"
 *   C:     "#rrggbb" | "#rrggbbaa" | "random" | "random:aa"
 *
 * Any number may be {"rand": [lo, hi]}, {"randi": [lo, hi]} or
 * {"pick": [v, ...]}; any value may be {"pick": [...]}. Strings expand
 * {i} (innermost repeat index), {j} (the one outside it), {n} (a counter
 * of repeated instances), each with optional "%m" and "+k" suffixes, as
 * in "photo{n%50+1}.jpg"; {"lorem": [lo, hi]} is that many random words.
 */
#ifndef BENCH_SCENE_JSON_H
#define BENCH_SCENE_JSON_H

#include "scene.h"

/* NULL (with a message) when the file is unreadable or malformed. */
struct bench_scene *scene_json_load(const char *path, const char *texture_dir);

#endif
