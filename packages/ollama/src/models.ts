import type { AdapterCapabilities } from '@yourtool/core';

/**
 * The context window the adapter asks for (`options.num_ctx`) when nothing else says how much
 * to use: Ollama's own long-standing default. The adapter always sends `num_ctx`, so the
 * declared `max_context_tokens` is exactly what the server allocates, whatever its own default
 * (which varies by version, `OLLAMA_CONTEXT_LENGTH` and available memory).
 */
export const DEFAULT_NUM_CTX = 4096;

/** Image media types the Ollama vision runners decode. */
export const OLLAMA_IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg'];

/** What `/api/show` says about one local model, reduced to what the adapter needs. */
export interface OllamaModelInfo {
  /** The model's capability list (`completion`, `tools`, `vision`, `thinking`, `embedding`, ...). */
  capabilities: string[];
  /** The context length the model was trained for (`model_info["<arch>.context_length"]`). */
  contextLength: number | null;
  /** `num_ctx` set in the model's Modelfile parameters, if any. */
  modelfileNumCtx: number | null;
  /** The Modelfile's default system prompt (used when a request sends none). */
  system: string | null;
  /**
   * The Modelfile's stop strings (template end markers such as `<|im_end|>`). A request's
   * `stop` replaces them on the server, so the adapter sends them along with the request's own.
   */
  stop: string[];
}

/** The parts of an `/api/show` response the adapter reads (the ollama client's `ShowResponse`). */
export interface OllamaShowLike {
  capabilities?: readonly string[] | null;
  model_info?: Record<string, unknown> | Map<string, unknown> | null;
  parameters?: string | null;
  template?: string | null;
  system?: string | null;
  projector_info?: Record<string, unknown> | Map<string, unknown> | null;
}

function entries(value: OllamaShowLike['model_info']): Array<[string, unknown]> {
  if (!value) return [];
  return value instanceof Map ? [...value.entries()] : Object.entries(value);
}

function positiveInt(value: unknown): number | null {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : null;
}

/**
 * Reads the Modelfile parameter block of `/api/show` (`"num_ctx    8192\nstop \"<|im_end|>\""`)
 * into name → values (a parameter may repeat, like `stop`).
 */
export function parseModelfileParameters(
  parameters: string | null | undefined,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of (parameters ?? '').split('\n')) {
    const match = /^\s*(\S+)\s+(.*?)\s*$/.exec(line);
    if (!match?.[1] || match[2] === undefined) continue;
    const value = match[2].replace(/^"(.*)"$/, '$1');
    out.set(match[1], [...(out.get(match[1]) ?? []), value]);
  }
  return out;
}

/**
 * Reduces an `/api/show` response to {@link OllamaModelInfo}. The context length comes from
 * `model_info["<general.architecture>.context_length"]` (or any `*.context_length` key). Servers
 * older than the `capabilities` list get it inferred: `tools` when the template renders
 * `.Tools`, `vision` when the model has a projector.
 */
export function parseOllamaShow(show: OllamaShowLike): OllamaModelInfo {
  const info = entries(show.model_info);
  const architecture = info.find(([key]) => key === 'general.architecture')?.[1];
  const contextKey =
    typeof architecture === 'string' ? `${architecture}.context_length` : undefined;
  const contextLength =
    positiveInt(info.find(([key]) => key === contextKey)?.[1]) ??
    positiveInt(info.find(([key]) => key.endsWith('.context_length'))?.[1]);
  let capabilities = show.capabilities ? [...show.capabilities] : null;
  if (!capabilities) {
    capabilities = ['completion'];
    if (show.template?.includes('.Tools')) capabilities.push('tools');
    if (entries(show.projector_info).length > 0) capabilities.push('vision');
  }
  const parameters = parseModelfileParameters(show.parameters);
  return {
    capabilities,
    contextLength,
    modelfileNumCtx: positiveInt(parameters.get('num_ctx')?.[0]),
    system: show.system?.trim() ? show.system : null,
    stop: parameters.get('stop') ?? [],
  };
}

/** How the adapter decides a model's context window (see {@link resolveNumCtx}). */
export interface NumCtxSettings {
  /** `capabilityOverrides[model].max_context_tokens`: the caller's word for this model. */
  override?: number | undefined;
  /** `AdapterConfig.options.num_ctx`: the adapter-wide choice. */
  configured?: number | undefined;
}

/**
 * The `num_ctx` the adapter sends for a model, which is also its declared `max_context_tokens`:
 * a per-model override, else the configured `num_ctx`, else the Modelfile's `num_ctx`, else
 * {@link DEFAULT_NUM_CTX}; never more than the context the model was trained for (Ollama clamps
 * to it).
 */
export function resolveNumCtx(info: OllamaModelInfo | undefined, settings: NumCtxSettings): number {
  const requested =
    settings.override ?? settings.configured ?? info?.modelfileNumCtx ?? DEFAULT_NUM_CTX;
  return info?.contextLength ? Math.min(requested, info.contextLength) : requested;
}

/**
 * Honest capabilities of a local model. Before `/api/show` was read (`info` undefined) they are
 * conservative: text, system prompt, streaming and structured output (`format` is enforced by
 * the server for every model), no tools, images or thinking. Tool calls arrive whole, so
 * `supports_streaming_tool_calls` is false; prompt caching is not controllable or reported.
 * `max_context_tokens` is the `num_ctx` the adapter sends ({@link resolveNumCtx}); Ollama has no
 * separate output cap, so `max_output_tokens` is the same window. Overrides win, field by field.
 */
export function ollamaCapabilities(
  info: OllamaModelInfo | undefined,
  settings: NumCtxSettings & { overrides?: Partial<AdapterCapabilities> | undefined } = {},
): AdapterCapabilities {
  const has = (capability: string) => info?.capabilities.includes(capability) ?? false;
  const numCtx = resolveNumCtx(info, {
    override: settings.overrides?.max_context_tokens,
    configured: settings.configured,
  });
  const tools = has('tools');
  const images = has('vision');
  return {
    supports_images: images,
    supports_thinking: has('thinking'),
    supports_tools: tools,
    supports_system_prompt: true,
    supports_structured_output: true,
    supports_streaming: true,
    supports_streaming_tool_calls: false,
    supports_parallel_tool_calls: tools,
    supports_prompt_caching: false,
    // Ollama's chat API has no tool choice: a forced one is sent as auto (decision 0175)
    supports_forced_tool_choice: false,
    max_context_tokens: numCtx,
    max_output_tokens: numCtx,
    accepted_image_media_types: images ? [...OLLAMA_IMAGE_MEDIA_TYPES] : [],
    ...settings.overrides,
    ...(settings.overrides?.max_context_tokens === undefined ? {} : { max_context_tokens: numCtx }),
  };
}

/**
 * Ollama's name for a model: `llama3.2` and `llama3.2:latest` are the same model. Used as the
 * key of the capability cache.
 */
export function normalizeOllamaModelName(name: string): string {
  const lastSegment = name.slice(name.lastIndexOf('/') + 1);
  return lastSegment.includes(':') ? name : `${name}:latest`;
}
