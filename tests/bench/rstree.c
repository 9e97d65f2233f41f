/*
 * Importer of RenderService tree dumps (see rstree.h for the mapping).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rstree.h"

#define MAX_DEPTH 256
#define TEXT_ASCENT 0.93f

static const char fullwidth_comma[] = "\xef\xbc\x8c"; /* U+FF0C */

enum shape {
	SHAPE_NONE,
	SHAPE_RECT,
	SHAPE_RRECT,
	SHAPE_CIRCLE,
};

/* What one dumped node says. */
struct rs_node {
	char kind[32];
	long id;
	char *name;
	bool has_bounds;
	struct vr_rectf bounds;
	enum shape shape;
	struct vr_radii radii;
	bool has_paint;
	struct vr_color paint;
	char *image;
	char *text;
	char *font;
	float font_size;
};

struct loader {
	struct bench_scene *scene;
	const char *texture_dir;
	struct rstree_info *info;
	/* ids seen, to count repeats (a sorted array would do; dumps are small) */
	long *ids;
	size_t nids, ids_cap;
	/* unknown attribute names and fonts warned about in this file */
	char warned[32][32];
	size_t nwarned;
	bool have_display;
};

/* Image files warned about, process-wide: one warning per name. */
static const char *warned_images[64];
static size_t nwarned_images;

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *rstree_font_family(const char *font_file, bool *known) {
	static const struct {
		const char *file, *family;
	} fonts[] = {
		{ "DancingScript-Regular.ttf", "DejaVu Serif" },
		{ "DroidSans.ttf", "DejaVu Sans" },
	};
	for (size_t i = 0; i < sizeof(fonts) / sizeof(fonts[0]); i++) {
		if (strcmp(font_file, fonts[i].file) == 0) {
			*known = true;
			return fonts[i].family;
		}
	}
	*known = false;
	return "DejaVu Sans";
}

/* True the first time key is seen in this file. */
static bool first_warning(struct loader *loader, const char *key) {
	for (size_t i = 0; i < loader->nwarned; i++) {
		if (strncmp(loader->warned[i], key, sizeof(loader->warned[i]) - 1) ==
				0) {
			return false;
		}
	}
	if (loader->nwarned < sizeof(loader->warned) / sizeof(loader->warned[0])) {
		snprintf(loader->warned[loader->nwarned++], sizeof(loader->warned[0]),
				"%s", key);
	}
	return true;
}

static void note_id(struct loader *loader, long id) {
	for (size_t i = 0; i < loader->nids; i++) {
		if (loader->ids[i] == id) {
			loader->info->duplicate_ids++;
			return;
		}
	}
	if (loader->nids == loader->ids_cap) {
		size_t cap = loader->ids_cap == 0 ? 64 : loader->ids_cap * 2;
		long *ids = realloc(loader->ids, cap * sizeof(*ids));
		if (ids == NULL) {
			return;
		}
		loader->ids = ids;
		loader->ids_cap = cap;
	}
	loader->ids[loader->nids++] = id;
}

/* ---- lexical helpers ---------------------------------------------------- */

/* Cut a `//` comment outside quotes; replace full-width commas outside
 * quotes by ','. In place. */
static void clean_line(char *line, size_t *fullwidth) {
	bool quoted = false;
	char *out = line;
	for (char *p = line; *p != '\0';) {
		if (*p == '"') {
			quoted = !quoted;
		} else if (!quoted && p[0] == '/' && p[1] == '/') {
			break;
		} else if (!quoted && strncmp(p, fullwidth_comma, 3) == 0) {
			*out++ = ',';
			p += 3;
			(*fullwidth)++;
			continue;
		}
		*out++ = *p++;
	}
	*out = '\0';
	/* trailing blanks and CR */
	while (out > line && isspace((unsigned char)out[-1])) {
		*--out = '\0';
	}
}

static char *skip_space(char *p) {
	while (*p != '\0' && isspace((unsigned char)*p)) {
		p++;
	}
	return p;
}

/* Next attribute: up to a ',' outside quotes and brackets. Returns the
 * attribute (trimmed, NUL-terminated) and advances *cursor; NULL at the
 * end. */
static char *next_attribute(char **cursor) {
	char *p = skip_space(*cursor);
	while (*p == ',') {
		p = skip_space(p + 1);
	}
	if (*p == '\0') {
		*cursor = p;
		return NULL;
	}
	char *start = p;
	bool quoted = false;
	int depth = 0;
	for (; *p != '\0'; p++) {
		if (*p == '"') {
			quoted = !quoted;
		} else if (!quoted && *p == '[') {
			depth++;
		} else if (!quoted && *p == ']') {
			depth--;
		} else if (!quoted && depth <= 0 && *p == ',') {
			break;
		}
	}
	char *end = p;
	*cursor = *p == ',' ? p + 1 : p;
	while (end > start && isspace((unsigned char)end[-1])) {
		end--;
	}
	*end = '\0';
	return start;
}

/* The text between the first '[' and its ']' (NUL-terminated in place). */
static char *bracket_body(char *attr) {
	char *open = strchr(attr, '[');
	if (open == NULL) {
		return NULL;
	}
	char *close = strrchr(open, ']');
	if (close != NULL) {
		*close = '\0';
	}
	return open + 1;
}

/* A quoted string starting at or after *p; advances past it. */
static char *quoted_string(char **p) {
	char *open = strchr(*p, '"');
	if (open == NULL) {
		return NULL;
	}
	char *close = strchr(open + 1, '"');
	if (close == NULL) {
		return NULL;
	}
	*close = '\0';
	*p = close + 1;
	return open + 1;
}

static int parse_floats(const char *s, float *out, int max) {
	int n = 0;
	while (n < max) {
		char *end;
		errno = 0;
		float v = strtof(s, &end);
		if (end == s) {
			break;
		}
		out[n++] = v;
		s = end;
	}
	return n;
}

static bool parse_color(struct loader *loader, const char *s,
		struct vr_color *color) {
	s = skip_space((char *)s);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
	}
	size_t digits = 0;
	while (isxdigit((unsigned char)s[digits])) {
		digits++;
	}
	if (digits == 0 || digits > 8) {
		return false;
	}
	uint32_t v = (uint32_t)strtoul(s, NULL, 16);
	if (digits < 8) {
		/* 0xfffffff: the missing leading digits are taken as 'f' */
		v |= ~0u << (4 * digits);
		char key[32];
		snprintf(key, sizeof(key), "color %zu", digits);
		if (first_warning(loader, key)) {
			bench_warn(loader->scene,
					"Paint with %zu hex digits "
					"(0x%.*s): missing leading digits taken as 'f'",
					digits, (int)digits, s);
		}
	}
	*color = (struct vr_color){
		.a = (float)((v >> 24) & 0xff) / 255.0f,
		.r = (float)((v >> 16) & 0xff) / 255.0f,
		.g = (float)((v >> 8) & 0xff) / 255.0f,
		.b = (float)(v & 0xff) / 255.0f,
	};
	return true;
}

static bool attr_is(const char *attr, const char *name) {
	size_t len = strlen(name);
	return strncmp(attr, name, len) == 0 &&
			(attr[len] == '\0' || attr[len] == '[' || attr[len] == ':' ||
					isspace((unsigned char)attr[len]));
}

/* A malformed value repaired or dropped: warned about every time, with
 * the node it is on. */
static void malformed(struct loader *loader, const struct rs_node *node,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void malformed(struct loader *loader, const struct rs_node *node,
		const char *fmt, ...) {
	char msg[160];
	va_list args;
	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);
	bench_warn(loader->scene, "%s[%ld]: %s", node->kind, node->id, msg);
	loader->info->malformed++;
}

static void parse_attribute(struct loader *loader, struct rs_node *node,
		char *attr) {
	if (attr_is(attr, "Name")) {
		char *body = bracket_body(attr);
		if (body != NULL && node->name == NULL) {
			node->name = strdup(body);
		}
	} else if (attr_is(attr, "Bounds")) {
		char *body = bracket_body(attr);
		float v[5];
		int n = body != NULL ? parse_floats(body, v, 5) : 0;
		if (n < 4) {
			malformed(loader, node,
					"Bounds with %d values: the node "
					"has no bounds",
					n);
			return;
		}
		if (n > 4) {
			malformed(loader, node,
					"Bounds with more than 4 values: "
					"the fifth (%g) and later dropped",
					(double)v[4]);
		}
		node->has_bounds = isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]) &&
				isfinite(v[3]);
		node->bounds = (struct vr_rectf){ v[0], v[1], v[2], v[3] };
		/* RS_NODE[0]'s -inf bounds say "unbounded": not malformed */
		if (!node->has_bounds && strcmp(node->kind, "RS_NODE") != 0) {
			malformed(loader, node,
					"Bounds not finite: the node has "
					"no bounds");
		} else if (node->has_bounds && (v[2] < 0.0f || v[3] < 0.0f)) {
			malformed(loader, node,
					"Bounds with a negative size "
					"(%g x %g): nothing drawn",
					(double)v[2], (double)v[3]);
		}
	} else if (attr_is(attr, "Rect")) {
		if (node->shape == SHAPE_NONE) {
			node->shape = SHAPE_RECT;
		}
	} else if (attr_is(attr, "Circle")) {
		node->shape = SHAPE_CIRCLE;
	} else if (attr_is(attr, "CornerRadius")) {
		char *body = bracket_body(attr);
		float v[5];
		int n = body != NULL ? parse_floats(body, v, 5) : 0;
		if (n == 0) {
			malformed(loader, node,
					"CornerRadius without a value "
					"dropped");
		} else if (n < 4) {
			malformed(loader, node,
					"CornerRadius with %d values: the "
					"last repeated",
					n);
		} else if (n > 4) {
			malformed(loader, node,
					"CornerRadius with more than 4 "
					"values: the fifth and later dropped");
		}
		if (n > 0) {
			for (int i = n; i < 4; i++) {
				v[i] = v[n - 1];
			}
			for (int i = 0; i < 4; i++) {
				if (!(v[i] >= 0.0f) || !isfinite(v[i])) {
					malformed(loader, node,
							"CornerRadius %g taken as "
							"0",
							(double)v[i]);
					v[i] = 0.0f;
				}
			}
			node->radii = (struct vr_radii){ v[0], v[1], v[2], v[3] };
			node->shape = SHAPE_RRECT;
		}
	} else if (attr_is(attr, "Paint")) {
		char *body = bracket_body(attr);
		if (body != NULL && parse_color(loader, body, &node->paint)) {
			node->has_paint = true;
		} else {
			malformed(loader, node,
					"Paint without a colour of 1 to 8 "
					"hex digits dropped");
		}
	} else if (attr_is(attr, "Image")) {
		char *p = attr;
		char *file = quoted_string(&p);
		if (file == NULL) {
			malformed(loader, node,
					"Image without a quoted file name "
					"dropped");
		} else if (node->image == NULL) {
			node->image = strdup(file);
		} else {
			malformed(loader, node, "a second Image (\"%s\") dropped", file);
		}
	} else if (attr_is(attr, "Text")) {
		char *body = bracket_body(attr);
		char *p = body;
		char *text = body != NULL ? quoted_string(&p) : NULL;
		char *font = text != NULL ? quoted_string(&p) : NULL;
		if (text == NULL) {
			malformed(loader, node,
					"Text without a quoted string "
					"dropped");
		} else {
			free(node->text);
			node->text = strdup(text);
			free(node->font);
			node->font = strdup(font != NULL ? font : "DroidSans.ttf");
			if (font == NULL) {
				malformed(loader, node,
						"Text without a font: "
						"DroidSans.ttf");
			}
			float size = 0.0f;
			if (font != NULL && parse_floats(p, &size, 1) == 1 && size > 0.0f &&
					isfinite(size)) {
				node->font_size = size;
			} else {
				node->font_size = 16.0f;
				if (font != NULL) {
					malformed(loader, node,
							"Text without a positive "
							"font size: 16");
				}
			}
		}
	} else {
		char key[32];
		size_t len = strcspn(attr, "[: ");
		snprintf(key, sizeof(key), "%.*s", (int)(len < 24 ? len : 24), attr);
		if (first_warning(loader, key)) {
			bench_warn(loader->scene, "unknown attribute '%s' ignored", key);
		}
	}
}

/* ---- content ------------------------------------------------------------ */

static struct bench_image *load_image(struct loader *loader, const char *file) {
	struct bench_scene *scene = loader->scene;
	struct bench_image *image = bench_scene_find_image(scene, file);
	if (image != NULL) {
		return image;
	}
	size_t len = strlen(loader->texture_dir) + strlen(file) + 2;
	char *path = malloc(len);
	if (path == NULL) {
		return NULL;
	}
	snprintf(path, len, "%s/%s", loader->texture_dir, file);
	uint64_t decode_ns = 0;
	struct vr_image *vr_image = bench_image_load(path, &decode_ns);
	free(path);
	if (vr_image == NULL) {
		return NULL;
	}
	scene->decode_ms += (double)decode_ns / 1e6;
	image = bench_scene_add_image(scene, file, vr_image);
	vr_image_unref(vr_image);
	return image;
}

static void warn_missing_image(struct loader *loader, const char *file) {
	for (size_t i = 0; i < nwarned_images; i++) {
		if (strcmp(warned_images[i], file) == 0) {
			return;
		}
	}
	if (nwarned_images < sizeof(warned_images) / sizeof(warned_images[0])) {
		warned_images[nwarned_images++] = bench_intern(file);
	}
	bench_warn(loader->scene,
			"image \"%s\" missing or undecodable in %s: "
			"drawn as a placeholder",
			file, loader->texture_dir);
}

static bool build_content(struct loader *loader, struct bench_node *node,
		const struct rs_node *rs) {
	struct bench_dl *dl = &node->dl;
	float w = rs->has_bounds ? rs->bounds.width : 0.0f;
	float h = rs->has_bounds ? rs->bounds.height : 0.0f;
	struct vr_rectf box = { 0.0f, 0.0f, w, h };
	bool drawable = w > 0.0f && h > 0.0f;
	struct bench_op *op;

	/* the shape, filled with Paint (unless Paint colours text) */
	enum shape shape = rs->shape;
	if (shape == SHAPE_NONE && rs->has_paint && rs->text == NULL &&
			rs->image == NULL) {
		shape = SHAPE_RECT;
	}
	bool fill = shape != SHAPE_NONE && drawable &&
			(rs->text == NULL || rs->shape != SHAPE_NONE) &&
			!(rs->image != NULL && !rs->has_paint);
	if (fill) {
		static const enum bench_op_type types[] = {
			[SHAPE_RECT] = BENCH_OP_RECT,
			[SHAPE_RRECT] = BENCH_OP_RRECT,
			[SHAPE_CIRCLE] = BENCH_OP_ELLIPSE,
		};
		if ((op = bench_dl_add(dl, types[shape])) == NULL) {
			return false;
		}
		op->rect = box;
		op->radii = rs->radii;
		op->paint.color = rs->has_paint ?
				rs->paint :
				(struct vr_color){ 1.0f, 1.0f, 1.0f, 1.0f };
	}

	if (rs->image != NULL && drawable) {
		struct bench_image *image = load_image(loader, rs->image);
		if (image == NULL) {
			warn_missing_image(loader, rs->image);
			loader->info->missing_images++;
			if ((op = bench_dl_add(dl, BENCH_OP_PLACEHOLDER)) == NULL) {
				return false;
			}
			op->rect = box;
			op->paint.color = (struct vr_color){ 0.8f, 0.8f, 0.8f, 1.0f };
		} else {
			bool rounded =
					rs->shape == SHAPE_RRECT || rs->shape == SHAPE_CIRCLE;
			if (rounded) {
				struct vr_radii radii = rs->radii;
				if (rs->shape == SHAPE_CIRCLE) {
					float r = fminf(w, h) / 2.0f;
					radii = (struct vr_radii){ r, r, r, r };
				}
				if (bench_dl_add(dl, BENCH_OP_SAVE) == NULL ||
						(op = bench_dl_add(dl, BENCH_OP_CLIP_RRECT)) == NULL) {
					return false;
				}
				op->rect = box;
				op->radii = radii;
			}
			if ((op = bench_dl_add(dl, BENCH_OP_IMAGE)) == NULL) {
				return false;
			}
			op->image = image;
			op->rect = box;
			op->v[0] = 1.0f;
			if (rounded && bench_dl_add(dl, BENCH_OP_RESTORE) == NULL) {
				return false;
			}
		}
	}

	if (rs->text != NULL && rs->text[0] != '\0') {
		bool known;
		const char *family = rstree_font_family(rs->font, &known);
		if (!known && first_warning(loader, rs->font)) {
			bench_warn(loader->scene, "font \"%s\" mapped to \"%s\"", rs->font,
					family);
		}
		if ((op = bench_dl_add(dl, BENCH_OP_TEXT)) == NULL) {
			return false;
		}
		op->text = strdup(rs->text);
		if (op->text == NULL) {
			return false;
		}
		op->font = (struct vr_font){
			.family = bench_intern(family),
			.size = rs->font_size,
			.weight = 400,
		};
		op->color = rs->has_paint ? rs->paint :
									(struct vr_color){ 0.0f, 0.0f, 0.0f, 1.0f };
		op->v[0] = 0.0f;
		op->v[1] = TEXT_ASCENT * rs->font_size;
	}
	return true;
}

/* ---- lines -------------------------------------------------------------- */

struct stack_entry {
	size_t column;
	struct bench_node *node;
};

static void rs_node_finish(struct rs_node *rs) {
	free(rs->name);
	free(rs->image);
	free(rs->text);
	free(rs->font);
}

/* Parse one cleaned node line (from its '|'). */
static bool parse_node_line(struct loader *loader, char *p,
		struct rs_node *rs) {
	p = skip_space(p + 1); /* past '|' */
	size_t len = 0;
	while (isupper((unsigned char)p[len]) || p[len] == '_') {
		len++;
	}
	if (len == 0 || len >= sizeof(rs->kind) || p[len] != '[') {
		return false;
	}
	memcpy(rs->kind, p, len);
	rs->kind[len] = '\0';
	char *end;
	rs->id = strtol(p + len + 1, &end, 10);
	if (*end != ']') {
		return false;
	}
	note_id(loader, rs->id);
	char *cursor = end + 1;
	char *attr;
	while ((attr = next_attribute(&cursor)) != NULL) {
		parse_attribute(loader, rs, attr);
	}
	return true;
}

static bool load_lines(struct loader *loader, char *data) {
	struct bench_scene *scene = loader->scene;
	struct stack_entry stack[MAX_DEPTH];
	size_t depth = 0;
	char *save = NULL;
	for (char *line = strtok_r(data, "\n", &save); line != NULL;
			line = strtok_r(NULL, "\n", &save)) {
		char *first = skip_space(line);
		if (first[0] == '/' && first[1] == '/') {
			if (strchr(first, '|') != NULL) {
				loader->info->comment_lines++;
			}
			continue;
		}
		clean_line(line, &loader->info->fullwidth_commas);
		char *bar = strchr(line, '|');
		if (bar == NULL || skip_space(line) != bar) {
			continue; /* headers, blank lines */
		}
		struct rs_node rs = { 0 };
		if (!parse_node_line(loader, bar, &rs)) {
			if (first_warning(loader, "bad line")) {
				bench_warn(scene, "unparsable line skipped: %.60s", bar);
			}
			rs_node_finish(&rs);
			continue;
		}
		loader->info->lines++;
		static const char *const kinds[] = {
			"RS_NODE",
			"DISPLAY_NODE",
			"SURFACE_NODE",
			"CANVAS_NODE",
		};
		bool known = false;
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			known = known || strcmp(rs.kind, kinds[i]) == 0;
		}
		if (!known && first_warning(loader, rs.kind)) {
			bench_warn(scene,
					"unknown node kind %s drawn as a canvas "
					"node",
					rs.kind);
		}

		size_t column = (size_t)(bar - line);
		while (depth > 0 && stack[depth - 1].column >= column) {
			depth--;
		}
		struct bench_node *parent =
				depth > 0 ? stack[depth - 1].node : scene->root;
		struct bench_node *node = bench_node_create(parent);
		if (node == NULL) {
			rs_node_finish(&rs);
			return false;
		}
		char label[64];
		snprintf(label, sizeof(label), "%s[%ld]", rs.kind, rs.id);
		node->name = strdup(rs.name != NULL ? rs.name : label);
		if (rs.has_bounds) {
			node->x = rs.bounds.x;
			node->y = rs.bounds.y;
		}
		bool clips = strcmp(rs.kind, "DISPLAY_NODE") == 0 ||
				strcmp(rs.kind, "SURFACE_NODE") == 0;
		if (clips && rs.has_bounds) {
			node->has_clip = true;
			node->clip = (struct vr_rectf){ 0.0f, 0.0f, rs.bounds.width,
				rs.bounds.height };
		}
		/* the clear colour: the root's background (RS_NODE, the first
		 * DISPLAY_NODE), white (OpenHarmony's window background) when
		 * it paints none */
		if (rs.has_paint && rs.text == NULL && rs.image == NULL &&
				(strcmp(rs.kind, "RS_NODE") == 0 ||
						(strcmp(rs.kind, "DISPLAY_NODE") == 0 &&
								!loader->have_display))) {
			scene->clear = rs.paint;
			scene->clear.a = 1.0f; /* nothing shows through */
		}
		if (strcmp(rs.kind, "DISPLAY_NODE") == 0 && rs.has_bounds &&
				!loader->have_display) {
			loader->have_display = true;
			scene->outputs[0] = (struct vr_box){
				(int32_t)lrintf(rs.bounds.x),
				(int32_t)lrintf(rs.bounds.y),
				(int32_t)lrintf(rs.bounds.width),
				(int32_t)lrintf(rs.bounds.height),
			};
		}
		bool ok = build_content(loader, node, &rs);
		rs_node_finish(&rs);
		if (!ok) {
			return false;
		}
		if (depth < MAX_DEPTH) {
			stack[depth++] = (struct stack_entry){ column, node };
		}
	}
	return true;
}

static char *read_file(const char *path) {
	FILE *file = fopen(path, "rb");
	if (file == NULL) {
		fprintf(stderr, "error: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, len = 0;
	char *data = malloc(cap);
	while (data != NULL) {
		size_t n = fread(data + len, 1, cap - len - 1, file);
		len += n;
		if (len < cap - 1) {
			break;
		}
		cap *= 2;
		char *bigger = realloc(data, cap);
		if (bigger == NULL) {
			free(data);
			data = NULL;
			break;
		}
		data = bigger;
	}
	fclose(file);
	if (data != NULL) {
		data[len] = '\0';
		/* CRLF files: the CR becomes trailing blank, dropped per line */
	}
	return data;
}

struct bench_scene *rstree_load(const char *path, const char *texture_dir,
		struct rstree_info *info) {
	uint64_t start = now_ns();
	struct rstree_info local_info;
	if (info == NULL) {
		info = &local_info;
	}
	*info = (struct rstree_info){ 0 };
	char *data = read_file(path);
	if (data == NULL) {
		return NULL;
	}
	/* the scene's name: the file name without directory and extension */
	const char *base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	char name[128];
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."), base);
	struct bench_scene *scene = bench_scene_create(name, "rstree");
	if (scene == NULL) {
		free(data);
		return NULL;
	}
	scene->noutputs = 1;
	scene->outputs[0] = (struct vr_box){ 0, 0, 1216, 2688 };
	scene->clear = (struct vr_color){ 1.0f, 1.0f, 1.0f, 1.0f };
	struct loader loader = {
		.scene = scene,
		.texture_dir = texture_dir,
		.info = info,
	};
	bool ok = load_lines(&loader, data);
	free(loader.ids);
	free(data);
	if (!ok) {
		fprintf(stderr, "error: %s: out of memory\n", path);
		bench_scene_destroy(scene);
		return NULL;
	}
	bench_scene_count(scene);
	scene->build_ms = (double)(now_ns() - start) / 1e6;
	return scene;
}
