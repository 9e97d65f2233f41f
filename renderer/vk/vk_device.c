/*
 * Vulkan instance, physical device choice, logical device and queue, and
 * the memory, buffer and image helpers every other file uses. Everything
 * here is thread-safe (Vulkan object creation needs no external
 * synchronisation).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "vk_private.h"

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

const char *vr_vk_result_str(VkResult result) {
	switch (result) {
	case VK_SUCCESS: return "VK_SUCCESS";
	case VK_NOT_READY: return "VK_NOT_READY";
	case VK_TIMEOUT: return "VK_TIMEOUT";
	case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
	case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
	case VK_ERROR_INITIALIZATION_FAILED:
		return "VK_ERROR_INITIALIZATION_FAILED";
	case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
	case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
	case VK_ERROR_EXTENSION_NOT_PRESENT:
		return "VK_ERROR_EXTENSION_NOT_PRESENT";
	case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
	case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
	case VK_ERROR_FRAGMENTED_POOL: return "VK_ERROR_FRAGMENTED_POOL";
	default: return "VkResult error";
	}
}

static VKAPI_ATTR VkBool32 VKAPI_CALL debug_callback(
		VkDebugUtilsMessageSeverityFlagBitsEXT severity,
		VkDebugUtilsMessageTypeFlagsEXT type,
		const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
	enum vr_log_level level =
			(severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ?
			VR_LOG_ERROR :
			VR_LOG_DEBUG;
	vr_log(level, "vulkan: %s", data->pMessage);
	return VK_FALSE;
}

static bool has_layer(const char *name) {
	uint32_t count = 0;
	if (vkEnumerateInstanceLayerProperties(&count, NULL) != VK_SUCCESS) {
		return false;
	}
	VkLayerProperties *layers = calloc(count, sizeof(*layers));
	if (layers == NULL) {
		return false;
	}
	bool found = false;
	if (vkEnumerateInstanceLayerProperties(&count, layers) == VK_SUCCESS) {
		for (uint32_t i = 0; i < count && !found; i++) {
			found = strcmp(layers[i].layerName, name) == 0;
		}
	}
	free(layers);
	return found;
}

static bool has_instance_extension(const char *name) {
	uint32_t count = 0;
	if (vkEnumerateInstanceExtensionProperties(NULL, &count, NULL) !=
			VK_SUCCESS) {
		return false;
	}
	VkExtensionProperties *exts = calloc(count, sizeof(*exts));
	if (exts == NULL) {
		return false;
	}
	bool found = false;
	if (vkEnumerateInstanceExtensionProperties(NULL, &count, exts) ==
			VK_SUCCESS) {
		for (uint32_t i = 0; i < count && !found; i++) {
			found = strcmp(exts[i].extensionName, name) == 0;
		}
	}
	free(exts);
	return found;
}

static bool create_instance(struct vr_renderer *renderer, bool validation) {
	uint32_t version = VK_API_VERSION_1_0;
	if (vkEnumerateInstanceVersion(&version) != VK_SUCCESS ||
			version < VK_API_VERSION_1_1) {
		vr_log(VR_LOG_ERROR, "Vulkan 1.1 is required");
		return false;
	}
	const char *layers[1];
	uint32_t nlayers = 0;
	const char *exts[1];
	uint32_t nexts = 0;
	bool debug_utils =
			has_instance_extension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
	if (validation) {
		if (has_layer(VALIDATION_LAYER)) {
			layers[nlayers++] = VALIDATION_LAYER;
		} else {
			vr_log(VR_LOG_INFO, "%s requested but not installed",
					VALIDATION_LAYER);
		}
	}
	if (debug_utils) {
		exts[nexts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	}
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "vitrail",
		.pEngineName = "vitrail",
		.apiVersion = VK_API_VERSION_1_1,
	};
	VkInstanceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
		.enabledLayerCount = nlayers,
		.ppEnabledLayerNames = layers,
		.enabledExtensionCount = nexts,
		.ppEnabledExtensionNames = exts,
	};
	VkResult res = vkCreateInstance(&info, NULL, &renderer->instance);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateInstance failed: %s",
				vr_vk_result_str(res));
		return false;
	}
	if (debug_utils) {
		PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
				(PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
						renderer->instance, "vkCreateDebugUtilsMessengerEXT");
		renderer->destroy_messenger =
				(PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
						renderer->instance, "vkDestroyDebugUtilsMessengerEXT");
		VkDebugUtilsMessengerCreateInfoEXT dinfo = {
			.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
			.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
					VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
			.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
					VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
					VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
			.pfnUserCallback = debug_callback,
		};
		if (create_messenger == NULL || renderer->destroy_messenger == NULL ||
				create_messenger(renderer->instance, &dinfo, NULL,
						&renderer->messenger) != VK_SUCCESS) {
			vr_log(VR_LOG_INFO, "no debug messenger");
			renderer->messenger = VK_NULL_HANDLE;
		}
	}
	return true;
}

static int device_type_rank(VkPhysicalDeviceType type) {
	switch (type) {
	case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
	case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
	case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
	case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
	default: return 0;
	}
}

/* A graphics queue family index, or -1. */
static int find_queue_family(VkPhysicalDevice phdev) {
	uint32_t count = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(phdev, &count, NULL);
	VkQueueFamilyProperties *props = calloc(count, sizeof(*props));
	if (props == NULL) {
		return -1;
	}
	vkGetPhysicalDeviceQueueFamilyProperties(phdev, &count, props);
	int index = -1;
	for (uint32_t i = 0; i < count && index < 0; i++) {
		if (props[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) {
			index = (int)i;
		}
	}
	free(props);
	return index;
}

static bool format_usable(VkPhysicalDevice phdev) {
	VkFormatProperties props;
	vkGetPhysicalDeviceFormatProperties(phdev, VK_FORMAT_B8G8R8A8_UNORM,
			&props);
	VkFormatFeatureFlags need = VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT |
			VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT |
			VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
			VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
			VK_FORMAT_FEATURE_TRANSFER_SRC_BIT |
			VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
	return (props.optimalTilingFeatures & need) == need;
}

static bool has_device_extension(VkPhysicalDevice phdev, const char *name);

/* The chosen device's DRM render node, where the driver tells it (a
 * property query: the extension need not be enabled). */
static void query_render_node(struct vr_renderer *renderer) {
	if (!has_device_extension(renderer->phdev,
				VK_EXT_PHYSICAL_DEVICE_DRM_EXTENSION_NAME)) {
		return;
	}
	VkPhysicalDeviceDrmPropertiesEXT drm = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRM_PROPERTIES_EXT,
	};
	VkPhysicalDeviceProperties2 props = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
		.pNext = &drm,
	};
	vkGetPhysicalDeviceProperties2(renderer->phdev, &props);
	renderer->has_render_node = drm.hasRender;
	renderer->render_major = drm.renderMajor;
	renderer->render_minor = drm.renderMinor;
}

static bool pick_physical_device(struct vr_renderer *renderer) {
	uint32_t count = 0;
	VkResult res = vkEnumeratePhysicalDevices(renderer->instance, &count, NULL);
	if (res != VK_SUCCESS || count == 0) {
		vr_log(VR_LOG_ERROR, "no Vulkan physical device");
		return false;
	}
	VkPhysicalDevice *phdevs = calloc(count, sizeof(*phdevs));
	if (phdevs == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return false;
	}
	vkEnumeratePhysicalDevices(renderer->instance, &count, phdevs);
	int best_rank = -1;
	for (uint32_t i = 0; i < count; i++) {
		VkPhysicalDeviceProperties props;
		vkGetPhysicalDeviceProperties(phdevs[i], &props);
		int family = find_queue_family(phdevs[i]);
		bool ok = props.apiVersion >= VK_API_VERSION_1_1 && family >= 0 &&
				format_usable(phdevs[i]);
		vr_log(VR_LOG_DEBUG, "device %u: %s (type %d)%s", i, props.deviceName,
				(int)props.deviceType, ok ? "" : ", unusable");
		if (!ok) {
			continue;
		}
		int rank = device_type_rank(props.deviceType);
		if (rank > best_rank) {
			best_rank = rank;
			renderer->phdev = phdevs[i];
			renderer->queue_family = (uint32_t)family;
			renderer->non_coherent_atom_size = props.limits.nonCoherentAtomSize;
			memcpy(renderer->device_name, props.deviceName,
					sizeof(renderer->device_name));
			renderer->software =
					props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
		}
	}
	free(phdevs);
	if (best_rank < 0) {
		vr_log(VR_LOG_ERROR,
				"no usable Vulkan 1.1 device with graphics "
				"and B8G8R8A8_UNORM rendering");
		return false;
	}
	vkGetPhysicalDeviceMemoryProperties(renderer->phdev,
			&renderer->memory_props);
	query_render_node(renderer);
	vr_log(VR_LOG_INFO, "using %s", renderer->device_name);
	return true;
}

static bool has_device_extension(VkPhysicalDevice phdev, const char *name) {
	uint32_t count = 0;
	if (vkEnumerateDeviceExtensionProperties(phdev, NULL, &count, NULL) !=
			VK_SUCCESS) {
		return false;
	}
	VkExtensionProperties *exts = calloc(count, sizeof(*exts));
	if (exts == NULL) {
		return false;
	}
	bool found = false;
	if (vkEnumerateDeviceExtensionProperties(phdev, NULL, &count, exts) ==
			VK_SUCCESS) {
		for (uint32_t i = 0; i < count && !found; i++) {
			found = strcmp(exts[i].extensionName, name) == 0;
		}
	}
	free(exts);
	return found;
}

/* VK_EXT_external_memory_host for vr_dst_buffer_import, enabled when the
 * device has it (it needs VK_KHR_external_memory: core in 1.1). */
static uint32_t host_import_extensions(struct vr_renderer *renderer,
		const char *exts[1]) {
	if (!has_device_extension(renderer->phdev,
				VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME)) {
		vr_log(VR_LOG_DEBUG, "%s missing: no host memory import",
				VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
		return 0;
	}
	VkPhysicalDeviceExternalMemoryHostPropertiesEXT host_props = {
		.sType =
				VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT,
	};
	VkPhysicalDeviceProperties2 props = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
		.pNext = &host_props,
	};
	vkGetPhysicalDeviceProperties2(renderer->phdev, &props);
	renderer->host_import_alignment =
			host_props.minImportedHostPointerAlignment;
	exts[0] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
	return 1;
}

/* Whether a sampled B8G8R8A8 image can be made over an imported dma-buf:
 * with the LINEAR modifier (VK_EXT_image_drm_format_modifier), or else
 * with LINEAR tiling. A physical-device query: nothing need be enabled. */
static bool linear_dmabuf_importable(VkPhysicalDevice phdev, bool modifiers) {
	VkPhysicalDeviceImageDrmFormatModifierInfoEXT modifier = {
		.sType =
				VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_DRM_FORMAT_MODIFIER_INFO_EXT,
		.drmFormatModifier = 0, /* DRM_FORMAT_MOD_LINEAR */
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VkPhysicalDeviceExternalImageFormatInfo external = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO,
		.pNext = modifiers ? &modifier : NULL,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
	};
	VkPhysicalDeviceImageFormatInfo2 info = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
		.pNext = &external,
		.format = VK_FORMAT_B8G8R8A8_UNORM,
		.type = VK_IMAGE_TYPE_2D,
		.tiling = modifiers ? VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT :
							  VK_IMAGE_TILING_LINEAR,
		.usage = VK_IMAGE_USAGE_SAMPLED_BIT,
	};
	VkExternalImageFormatProperties external_props = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES,
	};
	VkImageFormatProperties2 props = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2,
		.pNext = &external_props,
	};
	return vkGetPhysicalDeviceImageFormatProperties2(phdev, &info, &props) ==
			VK_SUCCESS &&
			(external_props.externalMemoryProperties.externalMemoryFeatures &
					VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) != 0;
}

/* The extensions that import client dma-bufs (resources_textures.c),
 * enabled when the device has them: VK_KHR_external_memory_fd and
 * VK_EXT_external_memory_dma_buf, and where present
 * VK_EXT_image_drm_format_modifier (with VK_KHR_image_format_list, core
 * only in 1.2). VITRAIL_NO_DMABUF_IMPORT=1 leaves them off. */
static uint32_t dmabuf_import_extensions(struct vr_renderer *renderer,
		const char *exts[4]) {
	const char *off = getenv("VITRAIL_NO_DMABUF_IMPORT");
	if ((off != NULL && strcmp(off, "1") == 0) ||
			!has_device_extension(renderer->phdev,
					VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME) ||
			!has_device_extension(renderer->phdev,
					VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME)) {
		vr_log(VR_LOG_DEBUG,
				"no dma-buf import: client dma-bufs are read "
				"by the CPU");
		return 0;
	}
	bool modifiers = has_device_extension(renderer->phdev,
							 VK_EXT_IMAGE_DRM_FORMAT_MODIFIER_EXTENSION_NAME) &&
			has_device_extension(renderer->phdev,
					VK_KHR_IMAGE_FORMAT_LIST_EXTENSION_NAME);
	if (!linear_dmabuf_importable(renderer->phdev, modifiers)) {
		vr_log(VR_LOG_INFO,
				"the device cannot sample LINEAR B8G8R8A8 "
				"dma-bufs: client dma-bufs are read by the CPU");
		return 0;
	}
	uint32_t n = 0;
	exts[n++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
	exts[n++] = VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME;
	renderer->has_dmabuf_import = true;
	if (modifiers) {
		exts[n++] = VK_EXT_IMAGE_DRM_FORMAT_MODIFIER_EXTENSION_NAME;
		exts[n++] = VK_KHR_IMAGE_FORMAT_LIST_EXTENSION_NAME;
		renderer->has_drm_modifiers = true;
	}
	vr_log(VR_LOG_INFO, "client dma-bufs sampled in place%s",
			renderer->has_drm_modifiers ? " (explicit DRM modifiers)" :
										  " (LINEAR images)");
	return n;
}

static bool init_device(struct vr_renderer *renderer, bool validation) {
	if (!create_instance(renderer, validation)) {
		return false;
	}
	if (!pick_physical_device(renderer)) {
		goto error_instance;
	}
	float priority = 1.0f;
	VkDeviceQueueCreateInfo qinfo = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = renderer->queue_family,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	const char *exts[5];
	uint32_t nhost = host_import_extensions(renderer, exts);
	uint32_t nexts = nhost + dmabuf_import_extensions(renderer, exts + nhost);
	VkDeviceCreateInfo dinfo = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qinfo,
		.enabledExtensionCount = nexts,
		.ppEnabledExtensionNames = exts,
	};
	VkResult res =
			vkCreateDevice(renderer->phdev, &dinfo, NULL, &renderer->device);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateDevice failed: %s",
				vr_vk_result_str(res));
		goto error_instance;
	}
	vkGetDeviceQueue(renderer->device, renderer->queue_family, 0,
			&renderer->queue);
	if (renderer->has_dmabuf_import) {
		renderer->get_memory_fd_props =
				(PFN_vkGetMemoryFdPropertiesKHR)vkGetDeviceProcAddr(
						renderer->device, "vkGetMemoryFdPropertiesKHR");
		renderer->has_dmabuf_import = renderer->get_memory_fd_props != NULL;
	}
	if (nhost > 0) {
		renderer->get_host_pointer_props =
				(PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
						renderer->device,
						"vkGetMemoryHostPointerPropertiesEXT");
		renderer->has_host_import = renderer->get_host_pointer_props != NULL;
	}
	return true;

error_instance:
	if (renderer->messenger != VK_NULL_HANDLE) {
		renderer->destroy_messenger(renderer->instance, renderer->messenger,
				NULL);
		renderer->messenger = VK_NULL_HANDLE;
	}
	vkDestroyInstance(renderer->instance, NULL);
	renderer->instance = VK_NULL_HANDLE;
	return false;
}

bool vr_renderer_imports_dmabuf(const struct vr_renderer *renderer) {
	return renderer->has_dmabuf_import;
}

unsigned vr_renderer_dmabuf_imports(struct vr_renderer *renderer,
		unsigned *reused) {
	if (reused != NULL) {
		*reused = atomic_load(&renderer->res.dmabuf_reuses);
	}
	return atomic_load(&renderer->res.dmabuf_imports);
}

bool vr_vk_init_device(struct vr_renderer *renderer, bool validation) {
	/* a software driver's threads (lavapipe's rasterisers) start with
	 * the instance or the device: they yield to the caller too */
	struct vr_tasks *before = malloc(sizeof(*before));
	if (before != NULL && !vr_tasks_snapshot(before)) {
		free(before);
		before = NULL;
	}
	bool ok = init_device(renderer, validation);
	if (ok && before != NULL) {
		vr_tasks_yield_new(before);
	}
	free(before);
	return ok;
}

void vr_vk_finish_device(struct vr_renderer *renderer) {
	if (renderer->device != VK_NULL_HANDLE) {
		vkDestroyDevice(renderer->device, NULL);
	}
	if (renderer->messenger != VK_NULL_HANDLE) {
		renderer->destroy_messenger(renderer->instance, renderer->messenger,
				NULL);
	}
	if (renderer->instance != VK_NULL_HANDLE) {
		vkDestroyInstance(renderer->instance, NULL);
	}
}

int vr_vk_find_memory_type(struct vr_renderer *renderer, uint32_t type_bits,
		VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) {
	const VkPhysicalDeviceMemoryProperties *props = &renderer->memory_props;
	int fallback = -1;
	for (uint32_t i = 0; i < props->memoryTypeCount; i++) {
		if (!(type_bits & (1u << i))) {
			continue;
		}
		VkMemoryPropertyFlags flags = props->memoryTypes[i].propertyFlags;
		if ((flags & required) != required) {
			continue;
		}
		if ((flags & preferred) == preferred) {
			return (int)i;
		}
		if (fallback < 0) {
			fallback = (int)i;
		}
	}
	return fallback;
}

bool vr_vk_allocate_memory(struct vr_renderer *renderer,
		const VkMemoryRequirements *reqs, VkMemoryPropertyFlags required,
		VkMemoryPropertyFlags preferred, VkDeviceMemory *memory,
		VkMemoryPropertyFlags *flags) {
	int type = vr_vk_find_memory_type(renderer, reqs->memoryTypeBits, required,
			preferred);
	if (type < 0) {
		vr_log(VR_LOG_ERROR, "no suitable memory type");
		return false;
	}
	VkMemoryAllocateInfo info = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = reqs->size,
		.memoryTypeIndex = (uint32_t)type,
	};
	VkResult res = vkAllocateMemory(renderer->device, &info, NULL, memory);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkAllocateMemory failed: %s",
				vr_vk_result_str(res));
		return false;
	}
	if (flags != NULL) {
		*flags = renderer->memory_props.memoryTypes[type].propertyFlags;
	}
	return true;
}

bool vr_vk_create_host_buffer(struct vr_renderer *renderer, VkDeviceSize size,
		VkBufferUsageFlags usage, VkMemoryPropertyFlags preferred,
		struct vr_host_buffer *out) {
	*out = (struct vr_host_buffer){ .size = size };
	vr_list_init(&out->link);
	VkBufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = size,
		.usage = usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VkResult res = vkCreateBuffer(renderer->device, &info, NULL, &out->buffer);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateBuffer failed: %s",
				vr_vk_result_str(res));
		return false;
	}
	VkMemoryRequirements reqs;
	vkGetBufferMemoryRequirements(renderer->device, out->buffer, &reqs);
	VkMemoryPropertyFlags flags;
	if (!vr_vk_allocate_memory(renderer, &reqs,
				VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, preferred, &out->memory,
				&flags)) {
		goto error_buffer;
	}
	res = vkBindBufferMemory(renderer->device, out->buffer, out->memory, 0);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkBindBufferMemory failed: %s",
				vr_vk_result_str(res));
		goto error_memory;
	}
	res = vkMapMemory(renderer->device, out->memory, 0, VK_WHOLE_SIZE, 0,
			&out->map);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkMapMemory failed: %s", vr_vk_result_str(res));
		goto error_memory;
	}
	out->coherent = flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	return true;

error_memory:
	vkFreeMemory(renderer->device, out->memory, NULL);
error_buffer:
	vkDestroyBuffer(renderer->device, out->buffer, NULL);
	*out = (struct vr_host_buffer){ 0 };
	vr_list_init(&out->link);
	return false;
}

void vr_vk_destroy_host_buffer(struct vr_renderer *renderer,
		struct vr_host_buffer *buffer) {
	if (buffer->buffer == VK_NULL_HANDLE) {
		return;
	}
	vkDestroyBuffer(renderer->device, buffer->buffer, NULL);
	vkFreeMemory(renderer->device, buffer->memory, NULL);
	buffer->buffer = VK_NULL_HANDLE;
	buffer->memory = VK_NULL_HANDLE;
	buffer->map = NULL;
	buffer->size = 0;
}

bool vr_vk_create_view(struct vr_renderer *renderer, VkImage image,
		VkComponentMapping components, VkImageView *view) {
	VkImageViewCreateInfo vinfo = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
		.image = image,
		.viewType = VK_IMAGE_VIEW_TYPE_2D,
		.format = VK_FORMAT_B8G8R8A8_UNORM,
		.components = components,
		.subresourceRange = {
			.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
			.levelCount = 1,
			.layerCount = 1,
		},
	};
	VkResult res = vkCreateImageView(renderer->device, &vinfo, NULL, view);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateImageView failed: %s",
				vr_vk_result_str(res));
		return false;
	}
	return true;
}

bool vr_vk_create_image(struct vr_renderer *renderer, int32_t width,
		int32_t height, VkImageUsageFlags usage, VkComponentMapping components,
		VkImage *image, VkDeviceMemory *memory, VkImageView *view) {
	VkImageCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = VK_FORMAT_B8G8R8A8_UNORM,
		.extent = { (uint32_t)width, (uint32_t)height, 1 },
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	VkResult res = vkCreateImage(renderer->device, &info, NULL, image);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateImage failed: %s", vr_vk_result_str(res));
		return false;
	}
	VkMemoryRequirements reqs;
	vkGetImageMemoryRequirements(renderer->device, *image, &reqs);
	if (!vr_vk_allocate_memory(renderer, &reqs, 0,
				VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, memory, NULL)) {
		goto error_image;
	}
	res = vkBindImageMemory(renderer->device, *image, *memory, 0);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkBindImageMemory failed: %s",
				vr_vk_result_str(res));
		goto error_memory;
	}
	if (!vr_vk_create_view(renderer, *image, components, view)) {
		goto error_memory;
	}
	return true;

error_memory:
	vkFreeMemory(renderer->device, *memory, NULL);
error_image:
	vkDestroyImage(renderer->device, *image, NULL);
	return false;
}

void vr_vk_image_barrier(VkCommandBuffer cb, VkImage image,
		VkImageLayout old_layout, VkImageLayout new_layout,
		VkPipelineStageFlags src_stage, VkAccessFlags src_access,
		VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
	VkImageMemoryBarrier barrier = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = src_access,
		.dstAccessMask = dst_access,
		.oldLayout = old_layout,
		.newLayout = new_layout,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = image,
		.subresourceRange = {
			.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
			.levelCount = 1,
			.layerCount = 1,
		},
	};
	vkCmdPipelineBarrier(cb, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1,
			&barrier);
}
