/*
 * The resource managers' pipelines (created once, on first use, never
 * under a lock readers need) and scratch images (resources.c's top
 * comment).
 */
#include "resources_private.h"

/* ---- pipelines ------------------------------------------------------------
 */

static VkShaderModule create_shader(struct vr_renderer *renderer,
		const uint32_t *code, size_t size) {
	VkShaderModuleCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		.codeSize = size,
		.pCode = code,
	};
	VkShaderModule module;
	VkResult res = vkCreateShaderModule(renderer->device, &info, NULL, &module);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateShaderModule failed: %s",
				vr_vk_result_str(res));
		return VK_NULL_HANDLE;
	}
	return module;
}

static VkPipeline compile_pipeline(struct vr_renderer *renderer,
		const struct vr_pipeline_desc *desc) {
	VkDevice dev = renderer->device;
	VkPipeline pipeline = VK_NULL_HANDLE;
	VkShaderModule vert =
			create_shader(renderer, desc->vert_spv, desc->vert_size);
	VkShaderModule frag =
			create_shader(renderer, desc->frag_spv, desc->frag_size);
	if (vert == VK_NULL_HANDLE || frag == VK_NULL_HANDLE) {
		goto out;
	}
	VkPipelineShaderStageCreateInfo stages[2] = {
		{
				.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
				.stage = VK_SHADER_STAGE_VERTEX_BIT,
				.module = vert,
				.pName = "main",
		},
		{
				.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
				.stage = VK_SHADER_STAGE_FRAGMENT_BIT,
				.module = frag,
				.pName = "main",
		},
	};
	VkVertexInputBindingDescription binding = {
		.binding = 0,
		.stride = desc->vertex_stride,
		.inputRate = VK_VERTEX_INPUT_RATE_VERTEX,
	};
	VkPipelineVertexInputStateCreateInfo vertex_input = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
		.vertexBindingDescriptionCount = desc->attribute_count > 0 ? 1 : 0,
		.pVertexBindingDescriptions = &binding,
		.vertexAttributeDescriptionCount = desc->attribute_count,
		.pVertexAttributeDescriptions = desc->attributes,
	};
	VkPipelineInputAssemblyStateCreateInfo assembly = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
		.topology = desc->topology,
	};
	VkPipelineViewportStateCreateInfo viewport = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
		.viewportCount = 1,
		.scissorCount = 1,
	};
	VkPipelineRasterizationStateCreateInfo raster = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
		.polygonMode = VK_POLYGON_MODE_FILL,
		.cullMode = VK_CULL_MODE_NONE,
		.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
		.lineWidth = 1.0f,
	};
	VkPipelineMultisampleStateCreateInfo multisample = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
		.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
	};
	/* premultiplied over */
	VkPipelineColorBlendAttachmentState blend_attachment = {
		.blendEnable = VK_TRUE,
		.srcColorBlendFactor = VK_BLEND_FACTOR_ONE,
		.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
		.colorBlendOp = VK_BLEND_OP_ADD,
		.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
		.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
		.alphaBlendOp = VK_BLEND_OP_ADD,
		.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
				VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT,
	};
	VkPipelineColorBlendStateCreateInfo blend = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
		.attachmentCount = 1,
		.pAttachments = &blend_attachment,
	};
	VkDynamicState dynamic_states[2] = {
		VK_DYNAMIC_STATE_VIEWPORT,
		VK_DYNAMIC_STATE_SCISSOR,
	};
	VkPipelineDynamicStateCreateInfo dynamic = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
		.dynamicStateCount = 2,
		.pDynamicStates = dynamic_states,
	};
	VkGraphicsPipelineCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
		.stageCount = 2,
		.pStages = stages,
		.pVertexInputState = &vertex_input,
		.pInputAssemblyState = &assembly,
		.pViewportState = &viewport,
		.pRasterizationState = &raster,
		.pMultisampleState = &multisample,
		.pColorBlendState = &blend,
		.pDynamicState = &dynamic,
		.layout = renderer->pipeline_layout,
		.renderPass = desc->offscreen ? renderer->offscreen_pass :
										renderer->render_pass,
		.subpass = 0,
	};
	/* through the renderer's cache (pipeline_cache.c; may be none) */
	VkResult res = vkCreateGraphicsPipelines(dev, renderer->pipeline_cache, 1,
			&info, NULL, &pipeline);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateGraphicsPipelines failed: %s",
				vr_vk_result_str(res));
		pipeline = VK_NULL_HANDLE;
	}
out:
	if (vert != VK_NULL_HANDLE) {
		vkDestroyShaderModule(dev, vert, NULL);
	}
	if (frag != VK_NULL_HANDLE) {
		vkDestroyShaderModule(dev, frag, NULL);
	}
	return pipeline;
}

/* Under pipelines_lock (either side). */
static struct vr_pipeline_entry *find_pipeline(struct vr_resources *res,
		uint32_t key) {
	for (size_t i = 0; i < res->npipelines; i++) {
		if (res->pipelines[i]->key == key) {
			return res->pipelines[i];
		}
	}
	return NULL;
}

/* Under the write side of pipelines_lock. */
static struct vr_pipeline_entry *insert_pipeline(struct vr_resources *res,
		uint32_t key) {
	if (res->npipelines == res->pipelines_cap) {
		size_t cap = res->pipelines_cap != 0 ? res->pipelines_cap * 2 : 16;
		struct vr_pipeline_entry **entries =
				realloc(res->pipelines, cap * sizeof(*entries));
		if (entries == NULL) {
			return NULL;
		}
		res->pipelines = entries;
		res->pipelines_cap = cap;
	}
	struct vr_pipeline_entry *entry = calloc(1, sizeof(*entry));
	if (entry == NULL) {
		return NULL;
	}
	entry->key = key;
	atomic_init(&entry->state, VR_RESOURCE_PREPARING);
	res->pipelines[res->npipelines++] = entry;
	return entry;
}

/* See vr_renderer_set_test_hold_creation(). */
void vr_res_test_hold_creation(struct vr_resources *res) {
	unsigned want = atomic_load_explicit(&res->test_hold_creation,
			memory_order_relaxed);
	for (int i = 0; want > 0 && i < 50000 &&
			atomic_load_explicit(&res->waiting, memory_order_relaxed) < want;
			i++) {
		nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
	}
}

void vr_renderer_set_test_hold_creation(struct vr_renderer *renderer,
		unsigned waiters) {
	atomic_store(&renderer->res.test_hold_creation, waiters);
}

/* The pipeline of desc, created by the first thread that asks;
 * VK_NULL_HANDLE when its creation failed (logged). */
static VkPipeline pipeline_acquire(struct vr_renderer *renderer,
		const struct vr_pipeline_desc *desc) {
	struct vr_resources *res = &renderer->res;
	pthread_rwlock_rdlock(&res->pipelines_lock);
	struct vr_pipeline_entry *entry = find_pipeline(res, desc->key);
	pthread_rwlock_unlock(&res->pipelines_lock);

	bool creator = false;
	if (entry == NULL) {
		pthread_rwlock_wrlock(&res->pipelines_lock);
		entry = find_pipeline(res, desc->key);
		if (entry == NULL) {
			entry = insert_pipeline(res, desc->key);
			creator = entry != NULL;
		}
		pthread_rwlock_unlock(&res->pipelines_lock);
		if (entry == NULL) {
			vr_log(VR_LOG_ERROR, "allocation failed");
			return VK_NULL_HANDLE;
		}
	}
	if (creator) {
		vr_res_test_hold_creation(res);
		/* compiled with no lock held: readers of other pipelines and
		 * the waiters of this one are not held up by it */
		entry->pipeline = compile_pipeline(renderer, desc);
		atomic_fetch_add_explicit(&res->pipelines_created, 1,
				memory_order_relaxed);
		vr_res_publish(res, &entry->state,
				entry->pipeline != VK_NULL_HANDLE ? VR_RESOURCE_READY :
													VR_RESOURCE_FAILED);
	}
	if (vr_res_wait_ready(res, &entry->state) != VR_RESOURCE_READY) {
		return VK_NULL_HANDLE;
	}
	return entry->pipeline;
}

VkPipeline vr_exec_pipeline(struct vr_exec_ctx *ctx,
		const struct vr_pipeline_desc *desc) {
	VkPipeline pipeline = pipeline_acquire(ctx->renderer, desc);
	if (pipeline == VK_NULL_HANDLE) {
		ctx->failed = true;
	}
	return pipeline;
}

bool vr_resources_warm_pipeline(struct vr_renderer *renderer,
		const struct vr_pipeline_desc *desc) {
	return pipeline_acquire(renderer, desc) != VK_NULL_HANDLE;
}

VkPipelineLayout vr_exec_pipeline_layout(struct vr_exec_ctx *ctx) {
	return ctx->renderer->pipeline_layout;
}

/* ---- scratch images --------------------------------------------------------
 */

void vr_res_scratch_free(struct vr_renderer *renderer,
		struct vr_scratch_image *scratch) {
	VkDevice dev = renderer->device;
	vr_res_free_sets(renderer, scratch->pool, 1, &scratch->scratch.set);
	vkDestroyFramebuffer(dev, scratch->scratch.framebuffer, NULL);
	vkDestroyImageView(dev, scratch->scratch.view, NULL);
	vkDestroyImage(dev, scratch->scratch.image, NULL);
	vkFreeMemory(dev, scratch->memory, NULL);
	free(scratch);
}

static struct vr_scratch_image *scratch_create(struct vr_renderer *renderer,
		int32_t width, int32_t height) {
	struct vr_scratch_image *scratch = calloc(1, sizeof(*scratch));
	if (scratch == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	vr_list_init(&scratch->link);
	scratch->scratch.width = width;
	scratch->scratch.height = height;
	VkComponentMapping identity = { 0 };
	if (!vr_vk_create_image(renderer, width, height,
				VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
						VK_IMAGE_USAGE_SAMPLED_BIT,
				identity, &scratch->scratch.image, &scratch->memory,
				&scratch->scratch.view)) {
		free(scratch);
		return NULL;
	}
	VkFramebufferCreateInfo finfo = {
		.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
		.renderPass = renderer->offscreen_pass,
		.attachmentCount = 1,
		.pAttachments = &scratch->scratch.view,
		.width = (uint32_t)width,
		.height = (uint32_t)height,
		.layers = 1,
	};
	VkResult res = vkCreateFramebuffer(renderer->device, &finfo, NULL,
			&scratch->scratch.framebuffer);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateFramebuffer failed: %s",
				vr_vk_result_str(res));
		goto error;
	}
	if (!vr_res_allocate_sets(renderer, 1, &scratch->scratch.set,
				&scratch->pool)) {
		goto error;
	}
	vr_res_write_image_set(renderer, scratch->scratch.set,
			scratch->scratch.view, VR_SAMPLER_LINEAR);
	return scratch;

error:
	vr_res_scratch_free(renderer, scratch);
	return NULL;
}

bool vr_exec_scratch(struct vr_exec_ctx *ctx, int32_t width, int32_t height,
		struct vr_scratch *out) {
	struct vr_renderer *renderer = ctx->renderer;
	struct vr_resources *res = &renderer->res;
	if (width <= 0 || height <= 0 || width > 16384 || height > 16384) {
		vr_log(VR_LOG_ERROR, "invalid scratch size %dx%d", width, height);
		ctx->failed = true;
		return false;
	}
	struct vr_scratch_image *found = NULL;
	pthread_mutex_lock(&res->scratch_lock);
	vr_list_for_each(scratch, &res->scratch_free, struct vr_scratch_image,
			link) {
		if (scratch->scratch.width == width &&
				scratch->scratch.height == height) {
			found = scratch;
			vr_list_remove(&found->link);
			vr_list_insert(&res->scratch_used, &found->link);
			break;
		}
	}
	pthread_mutex_unlock(&res->scratch_lock);
	if (found == NULL) {
		found = scratch_create(renderer, width, height);
		if (found == NULL) {
			ctx->failed = true;
			return false;
		}
		atomic_fetch_add_explicit(&res->scratch_created, 1,
				memory_order_relaxed);
		pthread_mutex_lock(&res->scratch_lock);
		vr_list_insert(&res->scratch_used, &found->link);
		pthread_mutex_unlock(&res->scratch_lock);
	}
	*out = found->scratch;
	return true;
}

bool vr_resources_warm_scratch(struct vr_renderer *renderer, int32_t width,
		int32_t height, unsigned count) {
	struct vr_resources *res = &renderer->res;
	if (width <= 0 || height <= 0 || width > 16384 || height > 16384) {
		return false;
	}
	unsigned have = 0;
	pthread_mutex_lock(&res->scratch_lock);
	vr_list_for_each(scratch, &res->scratch_free, struct vr_scratch_image,
			link) {
		have += scratch->scratch.width == width &&
				scratch->scratch.height == height;
	}
	pthread_mutex_unlock(&res->scratch_lock);
	for (; have < count; have++) {
		struct vr_scratch_image *scratch =
				scratch_create(renderer, width, height);
		if (scratch == NULL) {
			return false;
		}
		atomic_fetch_add_explicit(&res->scratch_warmed, 1,
				memory_order_relaxed);
		pthread_mutex_lock(&res->scratch_lock);
		/* idle from now on: destroyed like any unused scratch image */
		scratch->last_frame = renderer->frames;
		vr_list_insert(&res->scratch_free, &scratch->link);
		pthread_mutex_unlock(&res->scratch_lock);
	}
	return true;
}

VkRenderPass vr_exec_offscreen_pass(struct vr_exec_ctx *ctx) {
	return ctx->renderer->offscreen_pass;
}
