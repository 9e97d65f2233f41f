/*
 * vitrail-dmabuf-export: a GPU client of linux-dmabuf, for the device
 * checks (tests/device/run.sh). It allocates a buffer on a Vulkan device
 * with memory exported as a dma-buf (VK_EXT_external_memory_dma_buf), has
 * the GPU fill its top half with 0xcc2211 and its bottom half with
 * 0x2244cc (XRGB8888, LINEAR, stride width * 4), sends it through
 * zwp_linux_dmabuf_v1 (create, waiting for created or failed) as an xdg
 * toplevel's buffer, and stays mapped until it is killed.
 *
 * Usage: vitrail-dmabuf-export [WIDTH HEIGHT]  (default 256 192)
 *        vitrail-dmabuf-export --probe  (only: can a device export?)
 * Prints "READY <device name>" once the buffer is committed. Exit status
 * 77 (skip) with a line starting "SKIP:" where no device can export
 * dma-buf memory or the compositor offers no linux-dmabuf; 1 with "FAIL:"
 * when the compositor refuses the buffer.
 */
#define _GNU_SOURCE
#include <drm_fourcc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vulkan/vulkan.h>
#include <wayland-client.h>

#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

#define TOP 0xffcc2211u
#define BOTTOM 0xff2244ccu

struct gpu {
	VkInstance instance;
	VkPhysicalDevice physical;
	VkDevice device;
	VkQueue queue;
	uint32_t family;
	char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
};

static bool has_extension(VkPhysicalDevice physical, const char *name) {
	uint32_t n = 0;
	vkEnumerateDeviceExtensionProperties(physical, NULL, &n, NULL);
	VkExtensionProperties *props = calloc(n, sizeof(*props));
	vkEnumerateDeviceExtensionProperties(physical, NULL, &n, props);
	bool found = false;
	for (uint32_t i = 0; i < n && !found; i++) {
		found = strcmp(props[i].extensionName, name) == 0;
	}
	free(props);
	return found;
}

static bool exportable(VkPhysicalDevice physical) {
	VkPhysicalDeviceExternalBufferInfo info = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
		.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
	};
	VkExternalBufferProperties props = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES,
	};
	vkGetPhysicalDeviceExternalBufferProperties(physical, &info, &props);
	return (props.externalMemoryProperties.externalMemoryFeatures &
				   VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) != 0;
}

/* The first device that can export dma-buf memory, hardware before
 * software; false (with why) when none can. */
static bool gpu_init(struct gpu *gpu, char *why, size_t why_len) {
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "vitrail-dmabuf-export",
		.apiVersion = VK_API_VERSION_1_1,
	};
	VkInstanceCreateInfo ici = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
	};
	if (vkCreateInstance(&ici, NULL, &gpu->instance) != VK_SUCCESS) {
		snprintf(why, why_len, "no Vulkan instance");
		return false;
	}
	uint32_t n = 0;
	vkEnumeratePhysicalDevices(gpu->instance, &n, NULL);
	VkPhysicalDevice *devices = calloc(n, sizeof(*devices));
	vkEnumeratePhysicalDevices(gpu->instance, &n, devices);
	snprintf(why, why_len, "no Vulkan device");
	gpu->physical = VK_NULL_HANDLE;
	for (int pass = 0; pass < 2 && gpu->physical == VK_NULL_HANDLE; pass++) {
		for (uint32_t i = 0; i < n; i++) {
			VkPhysicalDeviceProperties props;
			vkGetPhysicalDeviceProperties(devices[i], &props);
			bool software = props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
			if (software != (pass == 1)) {
				continue;
			}
			if (!has_extension(devices[i], "VK_KHR_external_memory_fd") ||
					!has_extension(devices[i],
							"VK_EXT_external_memory_dma_buf") ||
					!exportable(devices[i])) {
				snprintf(why, why_len,
						"%.200s cannot export dma-buf memory "
						"(VK_EXT_external_memory_dma_buf)",
						props.deviceName);
				continue;
			}
			gpu->physical = devices[i];
			snprintf(gpu->name, sizeof(gpu->name), "%s", props.deviceName);
			break;
		}
	}
	free(devices);
	if (gpu->physical == VK_NULL_HANDLE) {
		return false;
	}
	vkGetPhysicalDeviceQueueFamilyProperties(gpu->physical, &n, NULL);
	VkQueueFamilyProperties *families = calloc(n, sizeof(*families));
	vkGetPhysicalDeviceQueueFamilyProperties(gpu->physical, &n, families);
	gpu->family = UINT32_MAX;
	for (uint32_t i = 0; i < n && gpu->family == UINT32_MAX; i++) {
		if (families[i].queueFlags &
				(VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT |
						VK_QUEUE_TRANSFER_BIT)) {
			gpu->family = i;
		}
	}
	free(families);
	float priority = 1.0f;
	VkDeviceQueueCreateInfo qci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = gpu->family,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	const char *extensions[] = { "VK_KHR_external_memory_fd",
		"VK_EXT_external_memory_dma_buf" };
	VkDeviceCreateInfo dci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qci,
		.enabledExtensionCount = 2,
		.ppEnabledExtensionNames = extensions,
	};
	if (vkCreateDevice(gpu->physical, &dci, NULL, &gpu->device) != VK_SUCCESS) {
		snprintf(why, why_len, "%.200s: no logical device", gpu->name);
		return false;
	}
	vkGetDeviceQueue(gpu->device, gpu->family, 0, &gpu->queue);
	return true;
}

/* A buffer of size bytes in exported memory, its halves filled by the
 * GPU; returns its dma-buf fd, -1 on failure. */
static int gpu_fill(struct gpu *gpu, VkDeviceSize size, VkDeviceSize half) {
	VkExternalMemoryBufferCreateInfo ext = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
		.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
	};
	VkBufferCreateInfo bci = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.pNext = &ext,
		.size = size,
		.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	};
	VkBuffer buffer;
	if (vkCreateBuffer(gpu->device, &bci, NULL, &buffer) != VK_SUCCESS) {
		return -1;
	}
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(gpu->device, buffer, &req);
	VkPhysicalDeviceMemoryProperties mem;
	vkGetPhysicalDeviceMemoryProperties(gpu->physical, &mem);
	/* host-visible memory first: the compositor maps the dma-buf */
	uint32_t type = UINT32_MAX;
	for (int pass = 0; pass < 2 && type == UINT32_MAX; pass++) {
		for (uint32_t i = 0; i < mem.memoryTypeCount; i++) {
			bool host = mem.memoryTypes[i].propertyFlags &
					VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
			if ((req.memoryTypeBits & (1u << i)) && (host || pass == 1)) {
				type = i;
				break;
			}
		}
	}
	VkMemoryDedicatedAllocateInfo dedicated = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
		.buffer = buffer,
	};
	VkExportMemoryAllocateInfo export = {
		.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
		.pNext = &dedicated,
		.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
	};
	VkMemoryAllocateInfo mai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = &export,
		.allocationSize = req.size,
		.memoryTypeIndex = type,
	};
	VkDeviceMemory memory;
	if (type == UINT32_MAX ||
			vkAllocateMemory(gpu->device, &mai, NULL, &memory) != VK_SUCCESS ||
			vkBindBufferMemory(gpu->device, buffer, memory, 0) != VK_SUCCESS) {
		return -1;
	}
	VkCommandPoolCreateInfo pci = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.queueFamilyIndex = gpu->family,
	};
	VkCommandPool pool;
	vkCreateCommandPool(gpu->device, &pci, NULL, &pool);
	VkCommandBufferAllocateInfo cai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	VkCommandBuffer cmd;
	vkAllocateCommandBuffers(gpu->device, &cai, &cmd);
	VkCommandBufferBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	vkBeginCommandBuffer(cmd, &begin);
	vkCmdFillBuffer(cmd, buffer, 0, half, TOP);
	vkCmdFillBuffer(cmd, buffer, half, size - half, BOTTOM);
	vkEndCommandBuffer(cmd);
	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &cmd,
	};
	/* waited for here: NVIDIA's driver attaches no implicit fence */
	if (vkQueueSubmit(gpu->queue, 1, &submit, VK_NULL_HANDLE) != VK_SUCCESS ||
			vkQueueWaitIdle(gpu->queue) != VK_SUCCESS) {
		return -1;
	}
	PFN_vkGetMemoryFdKHR get_fd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(
			gpu->device, "vkGetMemoryFdKHR");
	VkMemoryGetFdInfoKHR fdi = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
		.memory = memory,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
	};
	int fd = -1;
	if (get_fd == NULL || get_fd(gpu->device, &fdi, &fd) != VK_SUCCESS) {
		return -1;
	}
	return fd; /* the Vulkan objects live until the process ends */
}

struct client {
	struct wl_compositor *compositor;
	struct xdg_wm_base *wm_base;
	struct zwp_linux_dmabuf_v1 *dmabuf;
	bool configured;
	struct wl_buffer *created;
	bool failed;
};

static void registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct client *c = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		c->compositor =
				wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		c->wm_base =
				wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
	} else if (strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0 &&
			version >= 3) {
		c->dmabuf = wl_registry_bind(registry, name,
				&zwp_linux_dmabuf_v1_interface, 3);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static void wm_base_ping(void *data, struct xdg_wm_base *base,
		uint32_t serial) {
	xdg_wm_base_pong(base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {
	.ping = wm_base_ping,
};

static void xdg_surface_configure(void *data, struct xdg_surface *surface,
		uint32_t serial) {
	xdg_surface_ack_configure(surface, serial);
	((struct client *)data)->configured = true;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

static void params_created(void *data,
		struct zwp_linux_buffer_params_v1 *params, struct wl_buffer *buffer) {
	((struct client *)data)->created = buffer;
}

static void params_failed(void *data,
		struct zwp_linux_buffer_params_v1 *params) {
	((struct client *)data)->failed = true;
}

static const struct zwp_linux_buffer_params_v1_listener params_listener = {
	.created = params_created,
	.failed = params_failed,
};

int main(int argc, char *argv[]) {
	if (argc == 2 && strcmp(argv[1], "--probe") == 0) {
		struct gpu gpu = { 0 };
		char why[512];
		if (!gpu_init(&gpu, why, sizeof(why))) {
			printf("SKIP: %s\n", why);
			return 77;
		}
		printf("OK %s\n", gpu.name);
		return 0;
	}
	int32_t width = argc == 3 ? atoi(argv[1]) : 256;
	int32_t height = argc == 3 ? atoi(argv[2]) : 192;
	if (width < 2 || height < 2) {
		fprintf(stderr, "usage: %s [WIDTH HEIGHT]\n", argv[0]);
		return 2;
	}
	struct wl_display *display = wl_display_connect(NULL);
	if (display == NULL) {
		fprintf(stderr, "FAIL: cannot connect to the compositor\n");
		return 1;
	}
	struct client c = { 0 };
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, &c);
	wl_display_roundtrip(display);
	if (c.dmabuf == NULL) {
		printf("SKIP: the compositor offers no zwp_linux_dmabuf_v1 >= 3\n");
		return 77;
	}
	if (c.compositor == NULL || c.wm_base == NULL) {
		fprintf(stderr, "FAIL: no wl_compositor or xdg_wm_base\n");
		return 1;
	}
	struct gpu gpu = { 0 };
	char why[512];
	if (!gpu_init(&gpu, why, sizeof(why))) {
		printf("SKIP: %s\n", why);
		return 77;
	}
	uint32_t stride = (uint32_t)width * 4;
	VkDeviceSize size = (VkDeviceSize)stride * (VkDeviceSize)height;
	int fd = gpu_fill(&gpu, size, (VkDeviceSize)stride * (height / 2));
	if (fd < 0) {
		printf("SKIP: %s: exporting a filled buffer failed\n", gpu.name);
		return 77;
	}

	struct zwp_linux_buffer_params_v1 *params =
			zwp_linux_dmabuf_v1_create_params(c.dmabuf);
	zwp_linux_buffer_params_v1_add_listener(params, &params_listener, &c);
	zwp_linux_buffer_params_v1_add(params, fd, 0, 0, stride,
			(uint32_t)(DRM_FORMAT_MOD_LINEAR >> 32),
			(uint32_t)DRM_FORMAT_MOD_LINEAR);
	close(fd);
	zwp_linux_buffer_params_v1_create(params, width, height,
			DRM_FORMAT_XRGB8888, 0);
	while (c.created == NULL && !c.failed) {
		if (wl_display_dispatch(display) < 0) {
			fprintf(stderr, "FAIL: disconnected while creating the buffer\n");
			return 1;
		}
	}
	if (c.failed) {
		fprintf(stderr, "FAIL: the compositor refused the %s dma-buf\n",
				gpu.name);
		return 1;
	}

	xdg_wm_base_add_listener(c.wm_base, &wm_base_listener, &c);
	struct wl_surface *surface = wl_compositor_create_surface(c.compositor);
	struct xdg_surface *xdg_surface =
			xdg_wm_base_get_xdg_surface(c.wm_base, surface);
	xdg_surface_add_listener(xdg_surface, &xdg_surface_listener, &c);
	struct xdg_toplevel *toplevel = xdg_surface_get_toplevel(xdg_surface);
	xdg_toplevel_set_app_id(toplevel, "vitrail-dmabuf-export");
	xdg_toplevel_set_title(toplevel, "dmabuf export");
	wl_surface_commit(surface);
	while (!c.configured) {
		if (wl_display_dispatch(display) < 0) {
			fprintf(stderr, "FAIL: disconnected before the configure\n");
			return 1;
		}
	}
	wl_surface_attach(surface, c.created, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, width, height);
	wl_surface_commit(surface);
	wl_display_roundtrip(display);
	printf("READY %s\n", gpu.name);
	fflush(stdout);
	while (wl_display_dispatch(display) >= 0) {
	}
	return 0;
}
