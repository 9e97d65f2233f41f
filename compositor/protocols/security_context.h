/*
 * wp_security_context_manager_v1 (security_context.c): sandboxed clients,
 * connected through a sandbox engine's socket, and what they may not see.
 */
#ifndef VITRAIL_SECURITY_CONTEXT_H
#define VITRAIL_SECURITY_CONTEXT_H

#include <stdbool.h>

struct vt_server;
struct wl_client;

bool vt_security_context_init(struct vt_server *server);
/* Whether the client connected through a security context. */
bool vt_security_context_sandboxed(const struct wl_client *client);
/* Whether a sandboxed client must not see the global of interface, beyond
 * the privileged classes of vt_privilege_of (config.h): the security
 * context manager itself, the layer shell, the input method manager and
 * vitrail_test_v1. */
bool vt_security_context_hidden(const char *interface);

#endif
