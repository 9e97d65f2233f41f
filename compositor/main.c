#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wlr/util/log.h>

#include "desktop/kiosk.h"
#include "desktop/xwayland.h"
#include "loop.h"
#include "output/client_dmabuf.h"
#include "output/engine.h"
#include "output/frame_log.h"
#include "output/output.h"
#include "protocols/scroll_region.h"
#include "server.h"
#include "util.h"

#ifndef VITRAIL_VERSION
#define VITRAIL_VERSION "unknown"
#endif

static const char usage[] =
		"Usage: vitrail [options] [-- command [args...]]\n"
		"\n"
		"  -b, --backend NAME       auto (default), headless, wayland, x11, "
		"drm\n"
		"  -o, --outputs N          virtual outputs (headless, wayland, x11); "
		"default 1\n"
		"      --output-size WxH    size of virtual outputs; default 1280x720\n"
		"  -r, --refresh HZ[,HZ..]  refresh of headless outputs, one for all "
		"or one\n"
		"                           per output in order; default 60\n"
		"      --frame-pipeline P   async (default) or sync, the old "
		"synchronous path\n"
		"      --pacing P           vsync (default) or dvsync: render "
		"animations\n"
		"                           ahead of the display (D-VSync)\n"
		"      --prerender N[,N..]  dvsync: frames queued ahead, 1 to 5, for "
		"all\n"
		"                           outputs or per output in order; default 3\n"
		"  -S, --socket NAME        Wayland socket name; default: first free "
		"wayland-N\n"
		"  -s, --startup CMD        run CMD (through /bin/sh -c) once ready; "
		"repeatable\n"
		"  -c, --config FILE        config file (see vitrail(5))\n"
		"  -C, --validate           check the config file and exit\n"
		"  -m, --mode MODE          desktop or kiosk (overrides the config)\n"
		"      --allow CLASSES      privileged protocols offered in kiosk mode "
		"too\n"
		"                           (as the config's allow; comma separated)\n"
		"      --demo               embedded default: headless, two outputs, "
		"demo clients\n"
		"      --exit-after SEC     exit after SEC seconds\n"
		"      --screenshot-dir DIR on exit, write DIR/<output>.png for each "
		"output\n"
		"      --stats FILE         on exit, write the frame statistics to "
		"FILE\n"
		"      --frame-log FILE     per-frame timing CSV (also "
		"VITRAIL_FRAME_LOG)\n"
		"      --ready-fd FD        write WAYLAND_DISPLAY=<name> (and, with "
		"Xwayland,\n"
		"                           a line DISPLAY=:N) to FD when ready\n"
		"      --renderer-threads N worker threads of the parallel renderer\n"
		"                           (default: cores - 1, at least 1)\n"
		"      --sequential         render with the sequential baseline (no "
		"workers)\n"
		"      --render-backend B   auto (default), vulkan or cpu: what "
		"executes the\n"
		"                           renderer's tasks (auto measures on a CPU "
		"device)\n"
		"      --test               expose the test protocol vitrail_test_v1\n"
		"      --no-xwayland        offer no X display to X11 clients\n"
		"  -d, --debug              verbose logging\n"
		"  -h, --help               show this help\n"
		"  -v, --version            show the version\n";

enum {
	OPT_OUTPUT_SIZE = 256,
	OPT_DEMO,
	OPT_EXIT_AFTER,
	OPT_SCREENSHOT_DIR,
	OPT_STATS,
	OPT_FRAME_LOG,
	OPT_READY_FD,
	OPT_TEST,
	OPT_RENDERER_THREADS,
	OPT_SEQUENTIAL,
	OPT_RENDER_BACKEND,
	OPT_FRAME_PIPELINE,
	OPT_PACING,
	OPT_PRERENDER,
	OPT_ALLOW,
	OPT_NO_XWAYLAND,
};

static bool parse_size(const char *s, int *w, int *h) {
	char *end;
	long lw = strtol(s, &end, 10);
	if (*end != 'x') {
		return false;
	}
	long lh = strtol(end + 1, &end, 10);
	if (*end != '\0' || lw < 1 || lh < 1 || lw > 16384 || lh > 16384) {
		return false;
	}
	*w = (int)lw;
	*h = (int)lh;
	return true;
}

static bool parse_args(int argc, char *argv[], struct vt_options *opts,
		int *log_level) {
	static const struct option long_options[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "outputs", required_argument, NULL, 'o' },
		{ "output-size", required_argument, NULL, OPT_OUTPUT_SIZE },
		{ "refresh", required_argument, NULL, 'r' },
		{ "socket", required_argument, NULL, 'S' },
		{ "startup", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "validate", no_argument, NULL, 'C' },
		{ "mode", required_argument, NULL, 'm' },
		{ "demo", no_argument, NULL, OPT_DEMO },
		{ "exit-after", required_argument, NULL, OPT_EXIT_AFTER },
		{ "screenshot-dir", required_argument, NULL, OPT_SCREENSHOT_DIR },
		{ "stats", required_argument, NULL, OPT_STATS },
		{ "frame-log", required_argument, NULL, OPT_FRAME_LOG },
		{ "allow", required_argument, NULL, OPT_ALLOW },
		{ "ready-fd", required_argument, NULL, OPT_READY_FD },
		{ "test", no_argument, NULL, OPT_TEST },
		{ "renderer-threads", required_argument, NULL, OPT_RENDERER_THREADS },
		{ "sequential", no_argument, NULL, OPT_SEQUENTIAL },
		{ "render-backend", required_argument, NULL, OPT_RENDER_BACKEND },
		{ "frame-pipeline", required_argument, NULL, OPT_FRAME_PIPELINE },
		{ "pacing", required_argument, NULL, OPT_PACING },
		{ "prerender", required_argument, NULL, OPT_PRERENDER },
		{ "no-xwayland", no_argument, NULL, OPT_NO_XWAYLAND },
		{ "debug", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'v' },
		{ 0 },
	};
	int c;
	char *end;
	while ((c = getopt_long(argc, argv, "b:o:r:S:s:c:Cm:dhv", long_options,
					NULL)) != -1) {
		switch (c) {
		case 'b':
			if (strcmp(optarg, "auto") == 0) {
				opts->backend = VT_BACKEND_AUTO;
			} else if (strcmp(optarg, "headless") == 0) {
				opts->backend = VT_BACKEND_HEADLESS;
			} else if (strcmp(optarg, "wayland") == 0) {
				opts->backend = VT_BACKEND_WAYLAND;
			} else if (strcmp(optarg, "x11") == 0) {
				opts->backend = VT_BACKEND_X11;
			} else if (strcmp(optarg, "drm") == 0) {
				opts->backend = VT_BACKEND_DRM;
			} else {
				fprintf(stderr, "vitrail: unknown backend '%s'\n", optarg);
				return false;
			}
			break;
		case 'o':
			opts->outputs = (int)strtol(optarg, &end, 10);
			if (*end != '\0' || opts->outputs < 1 || opts->outputs > 16) {
				fprintf(stderr, "vitrail: --outputs takes 1 to 16\n");
				return false;
			}
			break;
		case OPT_OUTPUT_SIZE:
			if (!parse_size(optarg, &opts->output_width,
						&opts->output_height)) {
				fprintf(stderr,
						"vitrail: --output-size takes WxH, "
						"e.g. 1920x1080\n");
				return false;
			}
			break;
		case 'r': {
			const char *p = optarg;
			opts->refresh_count = 0;
			while (true) {
				double hz = strtod(p, &end);
				if (end == p || (*end != '\0' && *end != ',') || hz < 1 ||
						hz > 1000 || opts->refresh_count == VT_OUTPUTS_MAX) {
					fprintf(stderr,
							"vitrail: --refresh takes 1 to 1000 Hz, "
							"or up to %d of them separated by commas: '%s'\n",
							VT_OUTPUTS_MAX, optarg);
					return false;
				}
				opts->refresh_mhz[opts->refresh_count++] =
						(int)(hz * 1000 + 0.5);
				if (*end == '\0') {
					break;
				}
				p = end + 1;
			}
			break;
		}
		case OPT_FRAME_PIPELINE:
			if (strcmp(optarg, "async") == 0) {
				opts->pipeline = VT_PIPELINE_ASYNC;
			} else if (strcmp(optarg, "sync") == 0) {
				opts->pipeline = VT_PIPELINE_SYNC;
			} else {
				fprintf(stderr,
						"vitrail: --frame-pipeline takes async or "
						"sync, not '%s'\n",
						optarg);
				return false;
			}
			break;
		case OPT_PACING:
			if (strcmp(optarg, "vsync") == 0) {
				opts->pacing = VT_PACING_VSYNC;
			} else if (strcmp(optarg, "dvsync") == 0) {
				opts->pacing = VT_PACING_DVSYNC;
			} else {
				fprintf(stderr,
						"vitrail: --pacing takes vsync or dvsync, "
						"not '%s'\n",
						optarg);
				return false;
			}
			break;
		case OPT_PRERENDER: {
			/* one limit for all outputs, or one per output in order */
			opts->prerender_count = 0;
			const char *p = optarg;
			for (;;) {
				long n = strtol(p, &end, 10);
				if (end == p || n < 1 || n > VT_PRERENDER_MAX ||
						(*end != '\0' && *end != ',') ||
						opts->prerender_count >= VT_OUTPUTS_MAX) {
					fprintf(stderr,
							"vitrail: --prerender takes 1 to %d, "
							"or a comma-separated list of them\n",
							VT_PRERENDER_MAX);
					return false;
				}
				opts->prerender[opts->prerender_count++] = (int)n;
				if (*end == '\0') {
					break;
				}
				p = end + 1;
			}
			break;
		}
		case 'S': opts->socket = optarg; break;
		case 's': {
			char **startup = realloc(opts->startup,
					(size_t)(opts->startup_len + 1) * sizeof(char *));
			if (startup == NULL) {
				return false;
			}
			opts->startup = startup;
			opts->startup[opts->startup_len++] = optarg;
			break;
		}
		case 'c': opts->config_path = optarg; break;
		case 'C': opts->validate = true; break;
		case 'm':
			if (strcmp(optarg, "desktop") == 0) {
				opts->mode = VT_MODE_DESKTOP;
			} else if (strcmp(optarg, "kiosk") == 0) {
				opts->mode = VT_MODE_KIOSK;
			} else {
				fprintf(stderr, "vitrail: --mode takes desktop or kiosk\n");
				return false;
			}
			opts->mode_set = true;
			break;
		case OPT_ALLOW: {
			const char *why = vt_privileges_parse(optarg, &opts->allow);
			if (why != NULL) {
				fprintf(stderr, "vitrail: --allow: %s\n", why);
				return false;
			}
			break;
		}
		case OPT_DEMO: opts->demo = true; break;
		case OPT_EXIT_AFTER:
			opts->exit_after = strtod(optarg, &end);
			if (*end != '\0' || opts->exit_after <= 0) {
				fprintf(stderr, "vitrail: --exit-after takes seconds > 0\n");
				return false;
			}
			break;
		case OPT_SCREENSHOT_DIR: opts->screenshot_dir = optarg; break;
		case OPT_STATS: opts->stats_path = optarg; break;
		case OPT_FRAME_LOG: opts->frame_log_path = optarg; break;
		case OPT_READY_FD:
			opts->ready_fd = (int)strtol(optarg, &end, 10);
			if (*end != '\0' || opts->ready_fd < 0) {
				fprintf(stderr,
						"vitrail: --ready-fd takes a file descriptor\n");
				return false;
			}
			break;
		case OPT_TEST: opts->test = true; break;
		case OPT_NO_XWAYLAND: opts->no_xwayland = true; break;
		case OPT_RENDERER_THREADS:
			opts->renderer_threads = (int)strtol(optarg, &end, 10);
			if (*end != '\0' || opts->renderer_threads < 1 ||
					opts->renderer_threads > 64) {
				fprintf(stderr, "vitrail: --renderer-threads takes 1 to 64\n");
				return false;
			}
			break;
		case OPT_SEQUENTIAL: opts->sequential = true; break;
		case OPT_RENDER_BACKEND:
			if (strcmp(optarg, "auto") == 0) {
				opts->render_backend = VT_RENDER_AUTO;
			} else if (strcmp(optarg, "vulkan") == 0) {
				opts->render_backend = VT_RENDER_VULKAN;
			} else if (strcmp(optarg, "cpu") == 0) {
				opts->render_backend = VT_RENDER_CPU;
			} else {
				fprintf(stderr,
						"vitrail: --render-backend takes auto, "
						"vulkan or cpu\n");
				return false;
			}
			break;
		case 'd': *log_level = WLR_DEBUG; break;
		case 'h': printf("%s", usage); exit(EXIT_SUCCESS);
		case 'v': printf("vitrail %s\n", VITRAIL_VERSION); exit(EXIT_SUCCESS);
		default: fprintf(stderr, "%s", usage); return false;
		}
	}
	return true;
}

static int handle_terminate(int signal, void *data) {
	struct vt_server *server = data;
	wl_display_terminate(server->display);
	return 0;
}

static int handle_reload(int signal, void *data) {
	vt_server_reload(data);
	return 0;
}

static int handle_log_state(int signal, void *data) {
	vt_outputs_log_state(data);
	return 0;
}

static int handle_exit_timer(void *data) {
	struct vt_server *server = data;
	wl_display_terminate(server->display);
	return 0;
}

/* Reaps only the children vitrail started (vt_server_spawn): wlroots
 * waits for its own, Xwayland's launcher, when Xwayland is ready, and a
 * waitpid(-1) here could take that one first (wlroots would then give
 * up on Xwayland). */
static int handle_child(int signal, void *data) {
	struct vt_server *server = data;
	/* children may grow meanwhile (a kiosk app restarted) */
	for (int i = 0; i < server->children_len; i++) {
		pid_t pid = server->children[i];
		int status;
		if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid) {
			server->children[i] = -1;
			vt_kiosk_child_exited(server, pid, status);
		}
	}
	return 0;
}

/* The embedded default session's clients: our demo client next to this
 * binary (build tree) or in libexecdir, plus common Debian clients. */
static void spawn_demo_clients(struct vt_server *server) {
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char demo[PATH_MAX + 64] = "";
	if (len > 0) {
		exe[len] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash != NULL) {
			*slash = '\0';
		}
		snprintf(demo, sizeof(demo), "%s/../tests/clients/vitrail-demo", exe);
		if (access(demo, X_OK) != 0) {
			snprintf(demo, sizeof(demo), "%s/vitrail/vitrail-demo",
					VITRAIL_LIBEXECDIR);
		}
	}
	if (access(demo, X_OK) == 0) {
		char cmd[PATH_MAX + 128];
		snprintf(cmd, sizeof(cmd), "'%s' --app-id demo-a --size 420x280", demo);
		vt_server_spawn(server, cmd);
		snprintf(cmd, sizeof(cmd), "'%s' --app-id demo-b --size 360x260", demo);
		vt_server_spawn(server, cmd);
	} else {
		wlr_log(WLR_ERROR, "demo client vitrail-demo not found");
	}
	if (access("/usr/bin/weston-simple-shm", X_OK) == 0) {
		vt_server_spawn(server, "exec weston-simple-shm");
	}
	if (access("/usr/bin/foot", X_OK) == 0) {
		vt_server_spawn(server,
				"exec foot -o 'main.font=monospace:size=11' "
				"sh -c 'echo vitrail demo; uname -a; while :; do date; sleep "
				"1; done'");
	}
}

/* Client dmabufs shown without a copy, how many of those the engine
 * sampled in place (the others it read or uploaded), and how many of
 * those took a kept import of the same buffer again. */
static void print_dmabuf_stats(struct vt_server *server, FILE *f,
		const char *indent) {
	unsigned uncopied = vt_client_dmabuf_images();
	if (uncopied == 0) {
		return;
	}
	unsigned reused = 0;
	unsigned imported = server->engine != NULL ?
			vr_engine_dmabuf_imports(server->engine, &reused) :
			0;
	fprintf(f, "%sclient_dmabufs uncopied=%u imported=%u reused=%u\n", indent,
			uncopied, imported, reused);
}

static void write_exit_reports(struct vt_server *server) {
	struct vt_options *opts = &server->opts;
	FILE *stats = NULL;
	if (opts->screenshot_dir != NULL) {
		mkdir(opts->screenshot_dir, 0755);
	}
	if (opts->stats_path != NULL) {
		stats = fopen(opts->stats_path, "w");
		if (stats == NULL) {
			wlr_log(WLR_ERROR, "cannot write %s: %s", opts->stats_path,
					strerror(errno));
		}
	}
	char mode[32];
	if (server->renderer == NULL && server->cpu != NULL) {
		snprintf(mode, sizeof(mode), "%d threads",
				vr_cpu_renderer_workers(server->cpu));
	} else if (server->renderer == NULL) {
		snprintf(mode, sizeof(mode), "main thread");
	} else if (vr_renderer_is_sequential(server->renderer)) {
		snprintf(mode, sizeof(mode), "sequential");
	} else {
		snprintf(mode, sizeof(mode), "%d workers",
				vr_renderer_workers(server->renderer));
	}
	printf("frame statistics (%.1f s, renderer: %s, %s):\n",
			(vt_now_ns() - server->start_ns) / 1e9,
			vt_server_renderer_name(server), mode);
	vt_outputs_print_stats(server, stdout, "  ");
	vt_scroll_print_stats(server, stdout, "  ");
	print_dmabuf_stats(server, stdout, "  ");
	if (stats != NULL) {
		vt_outputs_print_stats(server, stats, "");
		vt_scroll_print_stats(server, stats, "");
		print_dmabuf_stats(server, stats, "");
		fclose(stats);
	}
	if (opts->screenshot_dir != NULL) {
		vt_outputs_write_screenshots(server, opts->screenshot_dir);
	}
	if (opts->frame_log_path != NULL) {
		printf("wrote %s\n", opts->frame_log_path);
	}
	if (stats != NULL) {
		printf("wrote %s\n", opts->stats_path);
	}
	fflush(stdout);
}

#if defined(__SANITIZE_ADDRESS__)
/* Sanitizer builds only: Mesa's lavapipe keeps global state that it frees
 * in no destructor; once the loader unloads the driver LeakSanitizer cannot
 * name the module, so tests/lsan.supp could not suppress it. Keep the
 * driver loaded (if it is the one in use) so the report names it. */
static void keep_vulkan_driver_loaded(void) {
	dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
}
#else
static void keep_vulkan_driver_loaded(void) {
}
#endif

int main(int argc, char *argv[]) {
	/* Block the signals we handle through the event loop before any
	 * thread exists (the Vulkan driver starts some): threads inherit the
	 * mask, so the signals reach the loop's signalfd and nothing else. */
	sigset_t handled;
	sigemptyset(&handled);
	sigaddset(&handled, SIGINT);
	sigaddset(&handled, SIGTERM);
	sigaddset(&handled, SIGHUP);
	sigaddset(&handled, SIGUSR1);
	sigaddset(&handled, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &handled, NULL);
	keep_vulkan_driver_loaded();
	struct vt_server server = { 0 };
	struct vt_options *opts = &server.opts;
	vt_options_defaults(opts);
	int log_level = WLR_INFO;
	if (!parse_args(argc, argv, opts, &log_level)) {
		free(opts->startup);
		return EXIT_FAILURE;
	}
	wlr_log_init(log_level, NULL);

	vt_config_defaults(&server.config);
	if (opts->config_path == NULL) {
		opts->config_path = vt_config_default_path();
	}
	if (opts->config_path != NULL &&
			!vt_config_load(&server.config, opts->config_path, stderr)) {
		if (opts->validate) {
			free(opts->startup);
			return EXIT_FAILURE;
		}
		wlr_log(WLR_ERROR, "using the default configuration");
	}
	if (opts->validate) {
		printf("%s: ok\n",
				opts->config_path ? opts->config_path :
									"(no config file: defaults)");
		free(opts->startup);
		return EXIT_SUCCESS;
	}
	if (opts->mode_set) {
		server.config.mode = opts->mode;
	}
	if (opts->demo) {
		opts->backend = VT_BACKEND_HEADLESS;
		if (opts->outputs < 2) {
			opts->outputs = 2;
		}
		if (opts->exit_after == 0) {
			opts->exit_after = 5;
		}
	}

	if (geteuid() == 0) {
		wlr_log(WLR_ERROR,
				"running as root: clients will run as root too; "
				"this is meant for CI and containers, not for a desktop");
	}
	if (!vt_ensure_runtime_dir()) {
		free(opts->startup);
		return EXIT_FAILURE;
	}
	const char *log_path = opts->frame_log_path;
	if (log_path == NULL) {
		log_path = getenv("VITRAIL_FRAME_LOG");
		opts->frame_log_path = log_path;
	}

	if (!vt_server_init(&server)) {
		vt_server_finish(&server);
		free(opts->startup);
		return EXIT_FAILURE;
	}
	if (log_path != NULL) {
		server.frame_log = vt_frame_log_open(log_path);
		if (server.frame_log == NULL) {
			wlr_log(WLR_ERROR, "cannot write the frame log %s: %s", log_path,
					strerror(errno));
		}
	}
	struct wl_event_source *sigint = wl_event_loop_add_signal(server.loop,
			SIGINT, handle_terminate, &server);
	struct wl_event_source *sigterm = wl_event_loop_add_signal(server.loop,
			SIGTERM, handle_terminate, &server);
	struct wl_event_source *sighup = wl_event_loop_add_signal(server.loop,
			SIGHUP, handle_reload, &server);
	struct wl_event_source *sigchld = wl_event_loop_add_signal(server.loop,
			SIGCHLD, handle_child, &server);
	struct wl_event_source *sigusr1 = wl_event_loop_add_signal(server.loop,
			SIGUSR1, handle_log_state, &server);
	if (opts->exit_after > 0) {
		server.exit_timer = wl_event_loop_add_timer(server.loop,
				handle_exit_timer, &server);
		wl_event_source_timer_update(server.exit_timer,
				(int)(opts->exit_after * 1000));
	}

	wlr_log(WLR_INFO, "running on WAYLAND_DISPLAY=%s", server.socket);
	const char *x_display = vt_xwayland_display(&server);
	if (opts->ready_fd >= 0) {
		/* one write: a reader that stops after the first line gets
		 * both lines in the pipe, not a SIGPIPE */
		char ready[128];
		int len = x_display != NULL ?
				snprintf(ready, sizeof(ready),
						"WAYLAND_DISPLAY=%s\n"
						"DISPLAY=%s\n",
						server.socket, x_display) :
				snprintf(ready, sizeof(ready), "WAYLAND_DISPLAY=%s\n",
						server.socket);
		if (len > 0 && (size_t)len < sizeof(ready) &&
				write(opts->ready_fd, ready, (size_t)len) != len) {
			wlr_log_errno(WLR_ERROR, "cannot write to --ready-fd");
		}
		close(opts->ready_fd);
	}
	for (int i = 0; i < opts->startup_len; i++) {
		vt_server_spawn(&server, opts->startup[i]);
	}
	if (optind < argc) {
		/* "-- command args": run it as one shell-quoted line. */
		size_t len = 1;
		for (int i = optind; i < argc; i++) {
			len += strlen(argv[i]) * 4 + 3;
		}
		char *cmd = calloc(1, len + 8);
		if (cmd != NULL) {
			strcat(cmd, "exec");
			for (int i = optind; i < argc; i++) {
				strcat(cmd, " '");
				for (const char *p = argv[i]; *p; p++) {
					if (*p == '\'') {
						strcat(cmd, "'\\''");
					} else {
						strncat(cmd, p, 1);
					}
				}
				strcat(cmd, "'");
			}
			vt_kiosk_start_app(&server, cmd);
			free(cmd);
		}
	}
	if (opts->demo) {
		spawn_demo_clients(&server);
	}

	server.running = true;
	wl_display_run(server.display);

	write_exit_reports(&server);
	wl_event_source_remove(sigint);
	wl_event_source_remove(sigterm);
	wl_event_source_remove(sighup);
	wl_event_source_remove(sigchld);
	wl_event_source_remove(sigusr1);
	vt_server_finish(&server);
	free(opts->startup);
	return server.exit_status;
}
