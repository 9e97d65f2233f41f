/*
 * Reader of our JSON scenes (format in scene_json.h).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include "scene_json.h"

#define MAX_NEST 8
#define DEG 0.01745329251994329577f

struct ctx {
	struct bench_scene *scene;
	struct bench_rng rng;
	const char *texture_dir;
	json_object *images; /* declarations */
	json_object *templates;
	long index[MAX_NEST]; /* repeat indices, innermost last */
	size_t nindex;
	long counter; /* repeated instances so far */
	int use_depth;
	bool failed;
};

static const char *const vocab_lorem[] = {
	"lorem",
	"ipsum",
	"dolor",
	"sit",
	"amet",
	"consectetur",
	"adipiscing",
	"elit",
	"sed",
	"do",
	"eiusmod",
	"tempor",
	"incididunt",
	"ut",
	"labore",
	"et",
	"dolore",
	"magna",
	"aliqua",
	"enim",
	"ad",
	"minim",
	"veniam",
	"quis",
	"nostrud",
	"exercitation",
	"ullamco",
	"laboris",
	"nisi",
	"aliquip",
	"ex",
	"ea",
	"commodo",
	"consequat",
	"duis",
	"aute",
	"irure",
	"in",
	"reprehenderit",
	"voluptate",
	"velit",
	"esse",
	"cillum",
	"eu",
	"fugiat",
	"nulla",
	"pariatur",
	"excepteur",
	"sint",
	"occaecat",
	"cupidatat",
	"non",
	"proident",
	"sunt",
	"culpa",
	"qui",
	"officia",
	"deserunt",
	"mollit",
	"anim",
	"id",
	"est",
	"laborum",
};

static const char *const vocab_code[] = {
	"static",
	"void",
	"struct",
	"vr_node",
	"*node",
	"=",
	"return",
	"if",
	"(",
	")",
	"{",
	"}",
	"for",
	"size_t",
	"i",
	"<",
	"n;",
	"i++)",
	"bool",
	"const",
	"float",
	"x,",
	"y;",
	"vr_render(renderer,",
	"tree,",
	"jobs,",
	"njobs);",
	"->",
	"&&",
	"||",
	"NULL",
	"true;",
	"false;",
	"uint32_t",
	"pixman_region32_t",
	"damage;",
	"//",
	"TODO:",
	"free(list);",
};

static const char *const vocab_shell[] = {
	"$",
	"ls",
	"-la",
	"drwxr-xr-x",
	"root",
	"4096",
	"Mar",
	"12",
	"10:42",
	"build/",
	"meson",
	"ninja",
	"-C",
	"[1/42]",
	"Compiling",
	"C",
	"object",
	"renderer/vk_render.c.o",
	"Linking",
	"target",
	"ok",
	"PASS",
	"FAIL",
	"make:",
	"***",
	"error:",
	"warning:",
	"git",
	"status",
	"On",
	"branch",
	"main",
	"vitrail",
	"--backend",
	"headless",
	"0.00s",
	"user",
	"sys",
};

static bool fail(struct ctx *ctx, const char *fmt, const char *what) {
	fprintf(stderr, "error: scene %s: ", ctx->scene->name);
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	ctx->failed = true;
	return false;
}

static json_object *get(json_object *obj, const char *key) {
	json_object *value = NULL;
	if (obj != NULL && json_object_is_type(obj, json_type_object) &&
			json_object_object_get_ex(obj, key, &value)) {
		return value;
	}
	return NULL;
}

/* {"pick": [...]} -> one element, recursively; anything else: itself. */
static json_object *resolve(struct ctx *ctx, json_object *value) {
	for (int guard = 0; guard < 8; guard++) {
		json_object *choices = get(value, "pick");
		if (choices == NULL || !json_object_is_type(choices, json_type_array) ||
				json_object_array_length(choices) == 0) {
			return value;
		}
		size_t n = json_object_array_length(choices);
		value = json_object_array_get_idx(choices,
				(size_t)bench_rng_int(&ctx->rng, 0, (int)n - 1));
	}
	return value;
}

static float num(struct ctx *ctx, json_object *value, float def) {
	value = resolve(ctx, value);
	if (value == NULL) {
		return def;
	}
	if (json_object_is_type(value, json_type_double) ||
			json_object_is_type(value, json_type_int)) {
		return (float)json_object_get_double(value);
	}
	json_object *range = get(value, "rand");
	bool integer = false;
	if (range == NULL) {
		range = get(value, "randi");
		integer = range != NULL;
	}
	if (range != NULL && json_object_is_type(range, json_type_array) &&
			json_object_array_length(range) == 2) {
		float lo = (float)json_object_get_double(
				json_object_array_get_idx(range, 0));
		float hi = (float)json_object_get_double(
				json_object_array_get_idx(range, 1));
		return integer ? (float)bench_rng_int(&ctx->rng, (int)lo, (int)hi) :
						 bench_rng_float(&ctx->rng, lo, hi);
	}
	fail(ctx, "not a number: %s", json_object_to_json_string(value));
	return def;
}

/* n numbers from an array; false when it is not one of that length. */
static bool nums(struct ctx *ctx, json_object *value, float *out, size_t n) {
	value = resolve(ctx, value);
	if (value == NULL || !json_object_is_type(value, json_type_array) ||
			json_object_array_length(value) != n) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		out[i] = num(ctx, json_object_array_get_idx(value, i), 0.0f);
	}
	return true;
}

static bool rect_of(struct ctx *ctx, json_object *value, struct vr_rectf *r) {
	float v[4];
	if (!nums(ctx, value, v, 4)) {
		return fail(ctx, "expected [x, y, w, h], got %s",
				value != NULL ? json_object_to_json_string(value) : "nothing");
	}
	*r = (struct vr_rectf){ v[0], v[1], v[2], v[3] };
	return true;
}

/* Append random words to buf until about `chars` characters. */
static void words(struct ctx *ctx, const char *const *vocab, size_t nvocab,
		size_t count, size_t chars, char *buf, size_t size) {
	size_t len = strlen(buf);
	for (size_t i = 0; (count > 0 ? i < count : len < chars) && len + 1 < size;
			i++) {
		const char *w = vocab[bench_rng_int(&ctx->rng, 0, (int)nvocab - 1)];
		int n = snprintf(buf + len, size - len, "%s%s", len > 0 ? " " : "", w);
		if (n < 0 || (size_t)n >= size - len) {
			break;
		}
		len += (size_t)n;
	}
}

/* Expand {i}, {j}, {n} with optional %m and +k. */
static void expand(struct ctx *ctx, const char *in, char *out, size_t size) {
	size_t len = 0;
	while (*in != '\0' && len + 1 < size) {
		if (*in == '{' && (in[1] == 'i' || in[1] == 'j' || in[1] == 'n')) {
			const char *p = in + 2;
			long v;
			if (in[1] == 'n') {
				v = ctx->counter;
			} else {
				size_t back = in[1] == 'i' ? 1 : 2;
				v = ctx->nindex >= back ? ctx->index[ctx->nindex - back] : 0;
			}
			if (*p == '%') {
				long m = strtol(p + 1, (char **)&p, 10);
				v = m > 0 ? v % m : v;
			}
			if (*p == '+') {
				v += strtol(p + 1, (char **)&p, 10);
			}
			if (*p == '}') {
				int n = snprintf(out + len, size - len, "%ld", v);
				len += n > 0 ? (size_t)n : 0;
				if (len >= size) {
					len = size - 1;
				}
				in = p + 1;
				continue;
			}
		}
		out[len++] = *in++;
	}
	out[len] = '\0';
}

/* A string value into buf; false when absent. */
static bool str(struct ctx *ctx, json_object *value, char *buf, size_t size) {
	value = resolve(ctx, value);
	if (value == NULL) {
		return false;
	}
	if (json_object_is_type(value, json_type_string)) {
		expand(ctx, json_object_get_string(value), buf, size);
		return true;
	}
	float range[2];
	if (nums(ctx, get(value, "lorem"), range, 2)) {
		buf[0] = '\0';
		size_t count =
				(size_t)bench_rng_int(&ctx->rng, (int)range[0], (int)range[1]);
		words(ctx, vocab_lorem, sizeof(vocab_lorem) / sizeof(vocab_lorem[0]),
				count > 0 ? count : 1, 0, buf, size);
		return true;
	}
	fail(ctx, "not a string: %s", json_object_to_json_string(value));
	return false;
}

static bool color_of(struct ctx *ctx, json_object *value, struct vr_color *c) {
	char s[32];
	if (!str(ctx, value, s, sizeof(s))) {
		return false;
	}
	if (strncmp(s, "random", 6) == 0) {
		c->r = bench_rng_float(&ctx->rng, 0.0f, 1.0f);
		c->g = bench_rng_float(&ctx->rng, 0.0f, 1.0f);
		c->b = bench_rng_float(&ctx->rng, 0.0f, 1.0f);
		c->a = s[6] == ':' ? (float)strtoul(s + 7, NULL, 16) / 255.0f : 1.0f;
		return true;
	}
	size_t n = strlen(s);
	if (s[0] != '#' || (n != 7 && n != 9) ||
			strspn(s + 1, "0123456789abcdefABCDEF") != n - 1) {
		return fail(ctx, "bad colour %s", s);
	}
	uint32_t v = (uint32_t)strtoul(s + 1, NULL, 16);
	if (n == 7) {
		v = v << 8 | 0xff;
	}
	*c = (struct vr_color){
		.r = (float)(v >> 24) / 255.0f,
		.g = (float)((v >> 16) & 0xff) / 255.0f,
		.b = (float)((v >> 8) & 0xff) / 255.0f,
		.a = (float)(v & 0xff) / 255.0f,
	};
	return true;
}

static struct vr_radii radii_of(struct ctx *ctx, json_object *value) {
	float v[4];
	if (nums(ctx, value, v, 4)) {
		return (struct vr_radii){ v[0], v[1], v[2], v[3] };
	}
	float r = num(ctx, value, 0.0f);
	return (struct vr_radii){ r, r, r, r };
}

static int enum_of(struct ctx *ctx, json_object *value,
		const char *const *names, int count) {
	char s[32];
	if (!str(ctx, value, s, sizeof(s))) {
		return 0;
	}
	for (int i = 0; i < count; i++) {
		if (strcmp(s, names[i]) == 0) {
			return i;
		}
	}
	fail(ctx, "unknown keyword %s", s);
	return 0;
}

/* ---- images ------------------------------------------------------------- */

static uint64_t hash_name(const char *s) {
	uint64_t h = 1469598103934665603ull;
	for (; *s != '\0'; s++) {
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	}
	return h;
}

static json_object *find_declaration(struct ctx *ctx, const char *name) {
	json_object *decl = get(ctx->images, name);
	if (decl != NULL) {
		return decl;
	}
	if (ctx->images == NULL) {
		return NULL;
	}
	json_object_object_foreach(ctx->images, key, value) {
		size_t len = strlen(key);
		if (len > 0 && key[len - 1] == '*' &&
				strncmp(name, key, len - 1) == 0) {
			return value;
		}
	}
	return NULL;
}

static struct vr_image *generate(struct ctx *ctx, json_object *decl,
		const char *kind, const char *name) {
	float size[2] = { 512.0f, 512.0f };
	nums(ctx, get(decl, "size"), size, 2);
	uint64_t seed = get(decl, "seed") != NULL ?
			(uint64_t)num(ctx, get(decl, "seed"), 0.0f) :
			hash_name(name);
	struct vr_color colors[2];
	json_object *list = get(decl, "colors");
	bool have_colors = list != NULL &&
			json_object_is_type(list, json_type_array) &&
			json_object_array_length(list) == 2 &&
			color_of(ctx, json_object_array_get_idx(list, 0), &colors[0]) &&
			color_of(ctx, json_object_array_get_idx(list, 1), &colors[1]);
	return bench_image_generate(kind, (int32_t)size[0], (int32_t)size[1], seed,
			have_colors ? &colors[0] : NULL, have_colors ? &colors[1] : NULL);
}

static struct bench_image *image_named(struct ctx *ctx, const char *name) {
	struct bench_scene *scene = ctx->scene;
	struct bench_image *image = bench_scene_find_image(scene, name);
	if (image != NULL) {
		return image;
	}
	json_object *decl = find_declaration(ctx, name);
	char file[256] = "";
	char kind[32] = "";
	if (decl != NULL && get(decl, "file") != NULL) {
		str(ctx, get(decl, "file"), file, sizeof(file));
	} else if (decl != NULL) {
		if (!str(ctx, get(decl, "generate"), kind, sizeof(kind))) {
			fail(ctx, "image %s: neither file nor generate", name);
			return NULL;
		}
	} else if (strchr(name, '.') != NULL) {
		snprintf(file, sizeof(file), "%s", name);
	} else {
		fail(ctx, "undeclared image %s", name);
		return NULL;
	}
	struct vr_image *vr_image = NULL;
	if (file[0] != '\0') {
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", ctx->texture_dir, file);
		uint64_t decode_ns = 0;
		vr_image = bench_image_load(path, &decode_ns);
		scene->decode_ms += (double)decode_ns / 1e6;
		if (vr_image == NULL) {
			bench_warn(scene,
					"image %s missing or undecodable: a "
					"generated photo instead",
					path);
			snprintf(kind, sizeof(kind), "photo");
		}
	}
	if (vr_image == NULL) {
		vr_image = generate(ctx, decl, kind, name);
		if (vr_image == NULL) {
			fail(ctx, "cannot generate image %s", name);
			return NULL;
		}
	}
	image = bench_scene_add_image(scene, name, vr_image);
	vr_image_unref(vr_image);
	if (image != NULL && strcmp(kind, "video") == 0) {
		image->video = true;
		image->video_seed = (uint32_t)hash_name(name);
		scene->animated = true;
	}
	return image;
}

/* ---- ops ---------------------------------------------------------------- */

static bool parse_ops(struct ctx *ctx, json_object *ops,
		struct bench_node *node);

static struct bench_op *add(struct ctx *ctx, struct bench_node *node,
		enum bench_op_type type) {
	struct bench_op *op = bench_dl_add(&node->dl, type);
	if (op == NULL) {
		fail(ctx, "%s", "out of memory");
	}
	return op;
}

static const char *const join_names[] = { "miter", "round", "bevel" };
static const char *const cap_names[] = { "butt", "round", "square" };
static const char *const rule_names[] = { "nonzero", "evenodd" };

/* The fill and/or stroke paints of op; returns how many (0..2). */
static int paints_of(struct ctx *ctx, json_object *op, struct vr_paint out[2]) {
	int n = 0;
	struct vr_paint base = {
		.join = (enum vr_line_join)enum_of(ctx, get(op, "join"), join_names, 3),
		.cap = (enum vr_line_cap)enum_of(ctx, get(op, "cap"), cap_names, 3),
		.miter_limit = num(ctx, get(op, "miter"), 0.0f),
		.fill_rule = (enum vr_fill_rule)enum_of(ctx, get(op, "fill_rule"),
				rule_names, 2),
	};
	if (get(op, "fill") != NULL) {
		out[n] = base;
		color_of(ctx, get(op, "fill"), &out[n].color);
		n++;
	}
	if (get(op, "stroke") != NULL) {
		out[n] = base;
		color_of(ctx, get(op, "stroke"), &out[n].color);
		out[n].stroke_width = num(ctx, get(op, "width"), 1.0f);
		if (out[n].stroke_width <= 0.0f) {
			out[n].stroke_width = 1.0f;
		}
		n++;
	}
	if (n == 0) {
		fail(ctx, "no fill or stroke in %s", json_object_to_json_string(op));
	}
	return n;
}

/* Copy the op (fill) into a second one (stroke) sharing its geometry. */
static bool emit_paints(struct ctx *ctx, struct bench_node *node,
		struct bench_op *proto, const struct vr_paint *paints, int npaints) {
	for (int i = 0; i < npaints; i++) {
		struct bench_op *op = add(ctx, node, proto->type);
		if (op == NULL) {
			return false;
		}
		*op = *proto;
		op->paint = paints[i];
		if (i > 0) {
			/* owned arrays: the second op gets its own copies */
			if (proto->points != NULL) {
				op->points = malloc(2 * proto->count * sizeof(float));
				if (op->points == NULL) {
					op->count = 0;
					return fail(ctx, "%s", "out of memory");
				}
				memcpy(op->points, proto->points,
						2 * proto->count * sizeof(float));
			}
			if (proto->path != NULL) {
				op->path = malloc(proto->path_len * sizeof(*op->path));
				if (op->path == NULL) {
					op->path_len = 0;
					return fail(ctx, "%s", "out of memory");
				}
				memcpy(op->path, proto->path,
						proto->path_len * sizeof(*op->path));
			}
		}
	}
	if (npaints == 0) {
		free(proto->points);
		free(proto->path);
	}
	return true;
}

static bool parse_path_string(struct ctx *ctx, const char *s,
		struct bench_op *op) {
	size_t cap = 16;
	op->path = malloc(cap * sizeof(*op->path));
	if (op->path == NULL) {
		return false;
	}
	while (*s != '\0') {
		while (isspace((unsigned char)*s) || *s == ',') {
			s++;
		}
		if (*s == '\0') {
			break;
		}
		char cmd = *s++;
		struct bench_path_el el = { 0 };
		int argc;
		switch (cmd) {
		case 'M':
			el.verb = BENCH_PATH_MOVE;
			argc = 2;
			break;
		case 'L':
			el.verb = BENCH_PATH_LINE;
			argc = 2;
			break;
		case 'Q':
			el.verb = BENCH_PATH_QUAD;
			argc = 4;
			break;
		case 'C':
			el.verb = BENCH_PATH_CUBIC;
			argc = 6;
			break;
		case 'Z':
			el.verb = BENCH_PATH_CLOSE;
			argc = 0;
			break;
		default: return fail(ctx, "bad path command in \"%s\"", s - 1);
		}
		for (int i = 0; i < argc; i++) {
			char *end;
			while (isspace((unsigned char)*s) || *s == ',') {
				s++;
			}
			el.p[i] = strtof(s, &end);
			if (end == s) {
				return fail(ctx, "bad path number at \"%s\"", s);
			}
			s = end;
		}
		if (op->path_len == cap) {
			cap *= 2;
			struct bench_path_el *bigger =
					realloc(op->path, cap * sizeof(*bigger));
			if (bigger == NULL) {
				return false;
			}
			op->path = bigger;
		}
		op->path[op->path_len++] = el;
	}
	return true;
}

static bool random_squiggle(struct ctx *ctx, struct bench_op *op,
		struct vr_rectf r, size_t segments) {
	op->path = malloc((segments + 1) * sizeof(*op->path));
	if (op->path == NULL) {
		return false;
	}
#define RX() bench_rng_float(&ctx->rng, r.x, r.x + r.width)
#define RY() bench_rng_float(&ctx->rng, r.y, r.y + r.height)
	float x = RX(), y = RY();
	op->path[0] = (struct bench_path_el){ BENCH_PATH_MOVE, { x, y } };
	for (size_t i = 1; i <= segments; i++) {
		/* a short step from the last point, kept inside the rect */
		float step = fminf(r.width, r.height) * 0.25f;
		float nx =
				fminf(fmaxf(x + bench_rng_float(&ctx->rng, -step, step), r.x),
						r.x + r.width);
		float ny =
				fminf(fmaxf(y + bench_rng_float(&ctx->rng, -step, step), r.y),
						r.y + r.height);
		op->path[i] = (struct bench_path_el){ BENCH_PATH_CUBIC,
			{ x + (nx - x) * 0.3f + bench_rng_float(&ctx->rng, -step, step) / 3,
					y + (ny - y) * 0.3f +
							bench_rng_float(&ctx->rng, -step, step) / 3,
					x + (nx - x) * 0.7f, y + (ny - y) * 0.7f, nx, ny } };
		x = nx;
		y = ny;
	}
#undef RX
#undef RY
	op->path_len = segments + 1;
	return true;
}

static bool random_walk(struct ctx *ctx, struct bench_op *op, struct vr_rectf r,
		size_t points) {
	if (points < 2) {
		points = 2;
	}
	op->points = malloc(2 * points * sizeof(float));
	if (op->points == NULL) {
		return false;
	}
	float y = r.y + r.height / 2.0f;
	for (size_t i = 0; i < points; i++) {
		y += bench_rng_float(&ctx->rng, -0.08f, 0.08f) * r.height;
		y = fminf(fmaxf(y, r.y), r.y + r.height);
		op->points[2 * i] = r.x + r.width * (float)i / (float)(points - 1);
		op->points[2 * i + 1] = y;
	}
	op->count = points;
	return true;
}

static bool font_of(struct ctx *ctx, json_object *op, struct vr_font *font) {
	char family[64] = "DejaVu Sans";
	str(ctx, get(op, "font"), family, sizeof(family));
	*font = (struct vr_font){
		.family = bench_intern(family),
		.size = num(ctx, get(op, "size"), 14.0f),
		.weight = (int)num(ctx, get(op, "weight"), 400.0f),
	};
	return font->size > 0.0f;
}

static bool add_text(struct ctx *ctx, struct bench_node *node, const char *text,
		float x, float y, const struct vr_font *font, struct vr_color color) {
	struct bench_op *op = add(ctx, node, BENCH_OP_TEXT);
	if (op == NULL || (op->text = strdup(text)) == NULL) {
		return false;
	}
	op->v[0] = x;
	op->v[1] = y;
	op->font = *font;
	op->color = color;
	return true;
}

static bool parse_paragraph(struct ctx *ctx, json_object *json,
		struct bench_node *node) {
	struct vr_rectf r;
	struct vr_font font;
	struct vr_color color = { 0.0f, 0.0f, 0.0f, 1.0f };
	if (!rect_of(ctx, get(json, "paragraph"), &r) ||
			!font_of(ctx, json, &font)) {
		return false;
	}
	color_of(ctx, get(json, "color"), &color);
	float line_height = num(ctx, get(json, "line_height"), font.size * 1.4f);
	char vocab_name[16] = "lorem";
	str(ctx, get(json, "vocab"), vocab_name, sizeof(vocab_name));
	const char *const *vocab = vocab_lorem;
	size_t nvocab = sizeof(vocab_lorem) / sizeof(vocab_lorem[0]);
	if (strcmp(vocab_name, "code") == 0) {
		vocab = vocab_code;
		nvocab = sizeof(vocab_code) / sizeof(vocab_code[0]);
	} else if (strcmp(vocab_name, "shell") == 0) {
		vocab = vocab_shell;
		nvocab = sizeof(vocab_shell) / sizeof(vocab_shell[0]);
	}
	json_object *colors = get(json, "colors");
	size_t ncolors =
			colors != NULL && json_object_is_type(colors, json_type_array) ?
			json_object_array_length(colors) :
			0;
	/* average advance: 0.6 em for monospace, 0.55 otherwise */
	float advance = font.size * (strstr(font.family, "Mono") ? 0.6f : 0.55f);
	size_t columns = (size_t)(r.width / advance);
	for (float y = r.y + font.size; y <= r.y + r.height; y += line_height) {
		/* ragged lines, some short, a few empty */
		size_t chars = (size_t)((float)columns *
				bench_rng_float(&ctx->rng, 0.2f, 1.0f));
		if (chars == 0 || bench_rng_int(&ctx->rng, 0, 9) == 0) {
			continue;
		}
		size_t indent = vocab == vocab_code ?
				(size_t)bench_rng_int(&ctx->rng, 0, 3) * 4 :
				0;
		size_t runs = ncolors > 0 ? (size_t)bench_rng_int(&ctx->rng, 1, 4) : 1;
		size_t col = indent;
		for (size_t k = 0; k < runs && col < columns; k++) {
			char buf[512] = "";
			size_t want = (chars - (chars < col ? chars : col)) / (runs - k);
			words(ctx, vocab, nvocab, 0, want > 0 ? want : 1, buf,
					sizeof(buf) < columns - col + 1 ? sizeof(buf) :
													  columns - col + 1);
			if (buf[0] == '\0') {
				break;
			}
			struct vr_color c = color;
			if (ncolors > 0) {
				color_of(ctx,
						json_object_array_get_idx(colors,
								(size_t)bench_rng_int(&ctx->rng, 0,
										(int)ncolors - 1)),
						&c);
			}
			if (!add_text(ctx, node, buf, r.x + advance * (float)col, y, &font,
						c)) {
				return false;
			}
			col += strlen(buf) + 1;
		}
	}
	return true;
}

/* Offsets of a repeat: copy k at step * (k % wrap) + row_step * (k / wrap). */
struct repeat {
	long count, wrap;
	float step[2], row_step[2];
};

static bool repeat_of(struct ctx *ctx, json_object *json, struct repeat *rep) {
	rep->count = (long)num(ctx, get(json, "repeat"), 1.0f);
	rep->wrap = (long)num(ctx, get(json, "wrap"), 0.0f);
	if (rep->wrap <= 0) {
		rep->wrap = rep->count > 0 ? rep->count : 1;
	}
	rep->step[0] = rep->step[1] = 0.0f;
	rep->row_step[0] = rep->row_step[1] = 0.0f;
	nums(ctx, get(json, "step"), rep->step, 2);
	nums(ctx, get(json, "row_step"), rep->row_step, 2);
	if (ctx->nindex >= MAX_NEST) {
		return fail(ctx, "%s", "repeats nested too deep");
	}
	return true;
}

static void repeat_offset(const struct repeat *rep, long k, float *dx,
		float *dy) {
	long col = k % rep->wrap, row = k / rep->wrap;
	*dx = rep->step[0] * (float)col + rep->row_step[0] * (float)row;
	*dy = rep->step[1] * (float)col + rep->row_step[1] * (float)row;
}

static bool parse_op(struct ctx *ctx, json_object *json,
		struct bench_node *node) {
	struct bench_op proto = { 0 };
	struct vr_paint paints[2];
	json_object *v;
	if (get(json, "repeat") != NULL) {
		struct repeat rep;
		if (!repeat_of(ctx, json, &rep)) {
			return false;
		}
		for (long k = 0; k < rep.count; k++) {
			float dx, dy;
			repeat_offset(&rep, k, &dx, &dy);
			ctx->index[ctx->nindex++] = k;
			ctx->counter++;
			struct bench_op *op;
			bool ok = add(ctx, node, BENCH_OP_SAVE) != NULL &&
					(op = add(ctx, node, BENCH_OP_TRANSLATE)) != NULL;
			if (ok) {
				op->v[0] = dx;
				op->v[1] = dy;
				ok = parse_ops(ctx, get(json, "ops"), node) &&
						add(ctx, node, BENCH_OP_RESTORE) != NULL;
			}
			ctx->nindex--;
			if (!ok) {
				return false;
			}
		}
		return true;
	}
	if (get(json, "save") != NULL) {
		return add(ctx, node, BENCH_OP_SAVE) != NULL;
	}
	if (get(json, "restore") != NULL) {
		return add(ctx, node, BENCH_OP_RESTORE) != NULL;
	}
	if ((v = get(json, "translate")) != NULL ||
			(v = get(json, "scale")) != NULL) {
		struct bench_op *op = add(ctx, node,
				get(json, "translate") != NULL ? BENCH_OP_TRANSLATE :
												 BENCH_OP_SCALE);
		return op != NULL &&
				(nums(ctx, v, op->v, 2) ||
						fail(ctx, "expected [x, y] in %s",
								json_object_to_json_string(json)));
	}
	if ((v = get(json, "rotate")) != NULL) {
		struct bench_op *op = add(ctx, node, BENCH_OP_ROTATE);
		if (op != NULL) {
			op->v[0] = num(ctx, v, 0.0f) * DEG;
		}
		return op != NULL;
	}
	if ((v = get(json, "clip")) != NULL) {
		bool rounded = get(json, "radius") != NULL;
		struct bench_op *op = add(ctx, node,
				rounded ? BENCH_OP_CLIP_RRECT : BENCH_OP_CLIP_RECT);
		if (op == NULL || !rect_of(ctx, v, &op->rect)) {
			return false;
		}
		op->radii = radii_of(ctx, get(json, "radius"));
		return true;
	}
	if ((v = get(json, "rect")) != NULL || (v = get(json, "rrect")) != NULL ||
			(v = get(json, "ellipse")) != NULL) {
		proto.type = get(json, "rect") != NULL ? BENCH_OP_RECT :
				get(json, "rrect") != NULL     ? BENCH_OP_RRECT :
												 BENCH_OP_ELLIPSE;
		if (!rect_of(ctx, v, &proto.rect)) {
			return false;
		}
		proto.radii = radii_of(ctx, get(json, "radius"));
		return emit_paints(ctx, node, &proto, paints,
				paints_of(ctx, json, paints));
	}
	if ((v = get(json, "line")) != NULL) {
		proto.type = BENCH_OP_LINE;
		if (!nums(ctx, v, proto.v, 4)) {
			return fail(ctx, "expected [x0, y0, x1, y1] in %s",
					json_object_to_json_string(json));
		}
		return emit_paints(ctx, node, &proto, paints,
				paints_of(ctx, json, paints));
	}
	if ((v = get(json, "polyline")) != NULL) {
		proto.type = BENCH_OP_POLYLINE;
		size_t n = json_object_is_type(v, json_type_array) ?
				json_object_array_length(v) :
				0;
		if (n < 4 || n % 2 != 0) {
			return fail(ctx, "bad polyline %s", json_object_to_json_string(v));
		}
		proto.points = malloc(n * sizeof(float));
		if (proto.points == NULL) {
			return false;
		}
		for (size_t i = 0; i < n; i++) {
			proto.points[i] = num(ctx, json_object_array_get_idx(v, i), 0.0f);
		}
		proto.count = n / 2;
		proto.closed = json_object_get_boolean(get(json, "closed"));
		return emit_paints(ctx, node, &proto, paints,
				paints_of(ctx, json, paints));
	}
	if ((v = get(json, "walk")) != NULL) {
		struct vr_rectf r;
		proto.type = BENCH_OP_POLYLINE;
		if (!rect_of(ctx, v, &r) ||
				!random_walk(ctx, &proto, r,
						(size_t)num(ctx, get(json, "points"), 50.0f))) {
			return false;
		}
		return emit_paints(ctx, node, &proto, paints,
				paints_of(ctx, json, paints));
	}
	if ((v = get(json, "squiggle")) != NULL) {
		struct vr_rectf r;
		proto.type = BENCH_OP_PATH;
		if (!rect_of(ctx, v, &r) ||
				!random_squiggle(ctx, &proto, r,
						(size_t)num(ctx, get(json, "segments"), 8.0f))) {
			return false;
		}
		return emit_paints(ctx, node, &proto, paints,
				paints_of(ctx, json, paints));
	}
	if ((v = get(json, "path")) != NULL) {
		char s[4096];
		proto.type = BENCH_OP_PATH;
		if (!str(ctx, v, s, sizeof(s)) || !parse_path_string(ctx, s, &proto)) {
			free(proto.path);
			return false;
		}
		return emit_paints(ctx, node, &proto, paints,
				paints_of(ctx, json, paints));
	}
	if ((v = get(json, "image")) != NULL) {
		char name[256];
		if (!str(ctx, v, name, sizeof(name))) {
			return false;
		}
		struct bench_image *image = image_named(ctx, name);
		if (image == NULL) {
			return false;
		}
		struct vr_rectf dst = { 0.0f, 0.0f, (float)vr_image_width(image->image),
			(float)vr_image_height(image->image) };
		if (get(json, "dst") != NULL && !rect_of(ctx, get(json, "dst"), &dst)) {
			return false;
		}
		bool rounded = get(json, "radius") != NULL;
		struct bench_op *op;
		if (rounded) {
			if (add(ctx, node, BENCH_OP_SAVE) == NULL ||
					(op = add(ctx, node, BENCH_OP_CLIP_RRECT)) == NULL) {
				return false;
			}
			op->rect = dst;
			op->radii = radii_of(ctx, get(json, "radius"));
		}
		if ((op = add(ctx, node, BENCH_OP_IMAGE)) == NULL) {
			return false;
		}
		op->image = image;
		op->rect = dst;
		op->v[0] = num(ctx, get(json, "opacity"), 1.0f);
		if (get(json, "src") != NULL) {
			op->has_src = rect_of(ctx, get(json, "src"), &op->src);
		}
		node->uses_video = node->uses_video || image->video;
		return !rounded || add(ctx, node, BENCH_OP_RESTORE) != NULL;
	}
	if ((v = get(json, "text")) != NULL) {
		char text[1024];
		float at[2] = { 0.0f, 0.0f };
		struct vr_font font;
		struct vr_color color = { 0.0f, 0.0f, 0.0f, 1.0f };
		if (!str(ctx, v, text, sizeof(text)) || !font_of(ctx, json, &font)) {
			return false;
		}
		nums(ctx, get(json, "at"), at, 2);
		color_of(ctx, get(json, "color"), &color);
		return add_text(ctx, node, text, at[0], at[1], &font, color);
	}
	if (get(json, "paragraph") != NULL) {
		return parse_paragraph(ctx, json, node);
	}
	if ((v = get(json, "shadow")) != NULL) {
		struct bench_op *op = add(ctx, node, BENCH_OP_SHADOW);
		if (op == NULL || !rect_of(ctx, v, &op->rect)) {
			return false;
		}
		op->radii = radii_of(ctx, get(json, "radius"));
		op->v[0] = num(ctx, get(json, "blur"), 16.0f);
		op->color = (struct vr_color){ 0.0f, 0.0f, 0.0f, 0.5f };
		color_of(ctx, get(json, "color"), &op->color);
		return true;
	}
	if ((v = get(json, "random_prims")) != NULL) {
		struct vr_rectf area;
		if (!rect_of(ctx, get(json, "area"), &area)) {
			return false;
		}
		bench_random_prims(&node->dl, &ctx->rng, (size_t)num(ctx, v, 0.0f),
				area);
		return true;
	}
	return fail(ctx, "unknown op %s", json_object_to_json_string(json));
}

static bool parse_ops(struct ctx *ctx, json_object *ops,
		struct bench_node *node) {
	if (ops == NULL) {
		return true;
	}
	if (!json_object_is_type(ops, json_type_array)) {
		return fail(ctx, "ops must be a list: %s",
				json_object_to_json_string(ops));
	}
	for (size_t i = 0; i < json_object_array_length(ops); i++) {
		if (!parse_op(ctx, json_object_array_get_idx(ops, i), node) ||
				ctx->failed) {
			return false;
		}
	}
	return true;
}

/* ---- nodes -------------------------------------------------------------- */

static bool parse_node(struct ctx *ctx, json_object *json,
		struct bench_node *parent, float dx, float dy);

/* Look a key up in the node, then in its template (recursively). */
static json_object *node_get(struct ctx *ctx, json_object *json,
		const char *key) {
	for (int depth = 0; json != NULL && depth < 8; depth++) {
		json_object *v = get(json, key);
		if (v != NULL) {
			return v;
		}
		char name[64];
		json_object *use = get(json, "use");
		if (use == NULL || !json_object_is_type(use, json_type_string)) {
			return NULL;
		}
		expand(ctx, json_object_get_string(use), name, sizeof(name));
		json = get(ctx->templates, name);
		if (json == NULL) {
			fail(ctx, "unknown template %s", name);
			return NULL;
		}
	}
	return NULL;
}

static bool instantiate(struct ctx *ctx, json_object *json,
		struct bench_node *parent, float dx, float dy) {
	struct bench_node *node = bench_node_create(parent);
	if (node == NULL) {
		return fail(ctx, "%s", "out of memory");
	}
	char name[128];
	if (str(ctx, node_get(ctx, json, "name"), name, sizeof(name))) {
		node->name = strdup(name);
	}
	float pos[2] = { 0.0f, 0.0f };
	nums(ctx, node_get(ctx, json, "pos"), pos, 2);
	node->x = pos[0] + dx;
	node->y = pos[1] + dy;
	json_object *v;
	if ((v = node_get(ctx, json, "scale")) != NULL) {
		float s[2];
		if (!nums(ctx, v, s, 2)) {
			s[0] = s[1] = num(ctx, v, 1.0f);
		}
		node->linear.a = s[0];
		node->linear.d = s[1];
	}
	if ((v = node_get(ctx, json, "rotate")) != NULL) {
		float r = num(ctx, v, 0.0f) * DEG;
		struct vr_mat rot = { cosf(r), sinf(r), -sinf(r), cosf(r), 0, 0 };
		vr_mat_multiply(&node->linear, &rot, &node->linear);
	}
	if ((v = node_get(ctx, json, "clip")) != NULL) {
		node->has_clip = rect_of(ctx, v, &node->clip);
	}
	node->opacity = num(ctx, node_get(ctx, json, "opacity"), 1.0f);
	if ((v = node_get(ctx, json, "animate")) != NULL) {
		float move[2] = { 0.0f, 0.0f };
		nums(ctx, get(v, "move"), move, 2);
		node->has_anim = true;
		node->anim = (struct bench_anim){ move[0], move[1],
			num(ctx, get(v, "period"), 60.0f) };
		ctx->scene->animated = true;
	}
	if (!parse_ops(ctx, node_get(ctx, json, "draw"), node)) {
		return false;
	}
	json_object *children = node_get(ctx, json, "children");
	if (children != NULL) {
		if (!json_object_is_type(children, json_type_array)) {
			return fail(ctx, "%s", "children must be a list");
		}
		for (size_t i = 0; i < json_object_array_length(children); i++) {
			if (!parse_node(ctx, json_object_array_get_idx(children, i), node,
						0.0f, 0.0f)) {
				return false;
			}
		}
	}
	return !ctx->failed;
}

static bool parse_node(struct ctx *ctx, json_object *json,
		struct bench_node *parent, float dx, float dy) {
	if (!json_object_is_type(json, json_type_object)) {
		return fail(ctx, "a node must be an object: %s",
				json_object_to_json_string(json));
	}
	if (get(json, "repeat") == NULL) {
		return instantiate(ctx, json, parent, dx, dy);
	}
	struct repeat rep;
	if (!repeat_of(ctx, json, &rep)) {
		return false;
	}
	for (long k = 0; k < rep.count; k++) {
		float ox, oy;
		repeat_offset(&rep, k, &ox, &oy);
		ctx->index[ctx->nindex++] = k;
		ctx->counter++;
		bool ok = instantiate(ctx, json, parent, dx + ox, dy + oy);
		ctx->nindex--;
		if (!ok) {
			return false;
		}
	}
	return true;
}

/* ---- the scene ---------------------------------------------------------- */

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool parse_outputs(struct ctx *ctx, json_object *root) {
	struct bench_scene *scene = ctx->scene;
	float size[2] = { 2560.0f, 1440.0f };
	nums(ctx, get(root, "output"), size, 2);
	json_object *outputs = get(root, "outputs");
	if (outputs != NULL && json_object_is_type(outputs, json_type_array)) {
		size_t n = json_object_array_length(outputs);
		if (n == 0 || n > BENCH_MAX_OUTPUTS) {
			return fail(ctx, "%s", "1 to 8 outputs");
		}
		for (size_t i = 0; i < n; i++) {
			struct vr_rectf r;
			if (!rect_of(ctx, json_object_array_get_idx(outputs, i), &r)) {
				return false;
			}
			scene->outputs[i] = (struct vr_box){ (int32_t)r.x, (int32_t)r.y,
				(int32_t)r.width, (int32_t)r.height };
		}
		scene->noutputs = n;
		return true;
	}
	long n = (long)num(ctx, outputs, 1.0f);
	if (n < 1 || n > BENCH_MAX_OUTPUTS) {
		return fail(ctx, "%s", "1 to 8 outputs");
	}
	for (long i = 0; i < n; i++) {
		scene->outputs[i] = (struct vr_box){ (int32_t)(size[0] * (float)i), 0,
			(int32_t)size[0], (int32_t)size[1] };
	}
	scene->noutputs = (size_t)n;
	return true;
}

struct bench_scene *scene_json_load(const char *path, const char *texture_dir) {
	uint64_t start = now_ns();
	json_object *root = json_object_from_file(path);
	if (root == NULL) {
		fprintf(stderr, "error: %s: %s\n", path, json_util_get_last_err());
		return NULL;
	}
	const char *base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	char name[128];
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."), base);
	json_object *name_json = get(root, "name");
	if (name_json != NULL && json_object_is_type(name_json, json_type_string)) {
		snprintf(name, sizeof(name), "%s", json_object_get_string(name_json));
	}
	struct bench_scene *scene = bench_scene_create(name, "ours");
	if (scene == NULL) {
		json_object_put(root);
		return NULL;
	}
	struct ctx ctx = {
		.scene = scene,
		.texture_dir = texture_dir,
		.images = get(root, "images"),
		.templates = get(root, "templates"),
	};
	bench_rng_seed(&ctx.rng, (uint64_t)num(&ctx, get(root, "seed"), 1.0f));
	bool ok = parse_outputs(&ctx, root);
	if (ok && get(root, "clear") != NULL) {
		ok = color_of(&ctx, get(root, "clear"), &scene->clear);
	}
	scene->cold_samples = (int)num(&ctx, get(root, "cold_samples"), 0.0f);
	json_object *nodes = get(root, "nodes");
	if (ok && get(root, "root") != NULL) {
		ok = parse_node(&ctx, get(root, "root"), scene->root, 0.0f, 0.0f);
	} else if (ok && nodes != NULL &&
			json_object_is_type(nodes, json_type_array)) {
		for (size_t i = 0; ok && i < json_object_array_length(nodes); i++) {
			ok = parse_node(&ctx, json_object_array_get_idx(nodes, i),
					scene->root, 0.0f, 0.0f);
		}
	} else if (ok) {
		ok = fail(&ctx, "%s", "no root or nodes");
	}
	json_object_put(root);
	if (!ok || ctx.failed) {
		fprintf(stderr, "error: %s: scene not loaded\n", path);
		bench_scene_destroy(scene);
		return NULL;
	}
	bench_scene_count(scene);
	scene->build_ms = (double)(now_ns() - start) / 1e6;
	return scene;
}
