import type { AdapterCapabilities } from '@yourtool/core';
import { stringify } from 'yaml';

/** A model served by the scripted provider, as {@link modelsYaml} writes it into models.yaml. */
export interface ScriptedModel {
  /**
   * The adapter type. Default: the model id's provider key when it is an adapter type
   * (`anthropic`, `vertex-anthropic`, `openai`, `google`, `ollama`, `openrouter`, `bedrock`, and the openai-compatible presets
   * `azure`, `deepseek`, `groq`, `mistral`, `vllm`), else `openai-compatible` serving that key.
   */
  type?: string;
  /** The name sent on the wire. Default: the id after its first colon. */
  wire_name?: string;
  aliases?: readonly string[];
  tier?: string;
  display_name?: string;
  can_delegate?: boolean;
  /**
   * Capability overrides (models.yaml `capabilities:`). For Chat-Completions-compatible types
   * they also describe the model to the adapter; without them such a model is declared with
   * tools, streamed tool calls and thinking.
   */
  capabilities?: Partial<AdapterCapabilities>;
  /** `type: openai` only: the API to call. Default `chat_completions`. */
  api?: 'chat_completions' | 'responses';
  /**
   * Adapter options (`options:` of the adapter entry), merged over what the helper sets. A
   * `google` model with `vertexai: true` reaches Gemini on Vertex AI: the helper adds a test
   * project and location (`scripted-project`, `us-east5`) unless given here; a
   * `vertex-anthropic` model gets the same project and region.
   */
  options?: Readonly<Record<string, unknown>>;
}

/** Options of {@link modelsYaml}. */
export interface ModelsYamlOptions {
  /** Models by canonical id (`provider:name`). */
  models: Readonly<Record<string, ScriptedModel>>;
  /**
   * Retries of each adapter. Default 0, so each call consumes exactly one scripted reply; set
   * it to test retries (a 429 with `retryAfterSeconds`, then a reply).
   */
  maxRetries?: number;
  /** Per-attempt deadline of each adapter, in seconds. */
  timeoutSeconds?: number;
  /** Longest silence in a stream before the call fails, in seconds (stall tests). */
  idleTimeoutSeconds?: number;
  /** The dummy API key every adapter sends. Default {@link SCRIPTED_API_KEY}. */
  apiKey?: string;
}

/** The dummy API key of {@link modelsYaml} (recorded as `[REDACTED]` like any key). */
export const SCRIPTED_API_KEY = 'sk-testing-scripted-provider-key';

const OWN_TYPES = new Set([
  'anthropic',
  'vertex-anthropic',
  'openai',
  'google',
  'ollama',
  'openrouter',
  'bedrock',
]);

/** The Google Cloud project that Vertex AI adapters of {@link modelsYaml} name in their paths. */
const VERTEX_TEST_PROJECT = 'scripted-project';

/** The Vertex AI region (`vertex-anthropic`) and location (`google`) of {@link modelsYaml}. */
const VERTEX_TEST_LOCATION = 'us-east5';

/**
 * The options a `bedrock` adapter is given: a region (the client needs one even with an
 * endpoint, and must not look for one in the environment or a profile) and HTTP/1.1, which the
 * scripted provider speaks (the SDK's default handler is HTTP/2).
 */
const BEDROCK_TEST_OPTIONS = { region: 'us-east-1', http_version: '1.1' } as const;
const COMPATIBLE_PRESETS = new Set(['azure', 'deepseek', 'groq', 'mistral', 'vllm']);

/** What a Chat-Completions-compatible model is declared to do when the script does not say. */
const COMPATIBLE_DEFAULTS: Partial<AdapterCapabilities> = {
  supports_tools: true,
  supports_streaming_tool_calls: true,
  supports_parallel_tool_calls: true,
  supports_thinking: true,
  supports_structured_output: true,
  max_context_tokens: 128_000,
  max_output_tokens: 16_384,
};

/**
 * The base URL each adapter type gets, so its SDK's paths reach the provider's routes
 * (`bedrock`: the client's `endpoint`, to which it adds `/model/{modelId}/converse`).
 */
function baseUrlFor(type: string, url: string): string {
  if (type === 'openrouter') return `${url}/api/v1`;
  // Claude on Vertex: the base URL holds the API version, as the regional host's does
  if (type === 'vertex-anthropic') return `${url}/v1`;
  if (type === 'openai' || type === 'openai-compatible' || COMPATIBLE_PRESETS.has(type)) {
    return `${url}/v1`;
  }
  return url;
}

interface AdapterDraft {
  key: string;
  entry: Record<string, unknown>;
}

function splitId(id: string): { provider: string; name: string } {
  const at = id.indexOf(':');
  if (at <= 0 || at === id.length - 1) {
    throw new RangeError(`modelsYaml(): "${id}" is not a canonical model id (provider:name)`);
  }
  return { provider: id.slice(0, at), name: id.slice(at + 1) };
}

/** A model of the document, as its adapter entry needs it. */
interface ModelPlace {
  provider: string;
  model: ScriptedModel;
  /** The name the model goes by on the wire. */
  wire: string;
}

/** The adapter entry a model needs to reach the scripted provider at `url`. */
function adapterEntry(
  { provider, model, wire }: ModelPlace,
  url: string,
  options: ModelsYamlOptions,
): Record<string, unknown> {
  const type =
    model.type ??
    (OWN_TYPES.has(provider) || COMPATIBLE_PRESETS.has(provider) ? provider : 'openai-compatible');
  const adapterOptions: Record<string, unknown> = {};
  if (type === 'openai-compatible' && provider !== 'openai-compatible') {
    adapterOptions.provider = provider;
  }
  if (type === 'openai-compatible' || COMPATIBLE_PRESETS.has(type)) {
    adapterOptions.models = { [wire]: { ...COMPATIBLE_DEFAULTS, ...model.capabilities } };
  }
  // Bedrock: the endpoint is base_url, the key goes as a Bedrock API key (bearer token)
  if (type === 'bedrock') Object.assign(adapterOptions, BEDROCK_TEST_OPTIONS);
  // Vertex AI: the key goes as an OAuth access token (Claude) or express-mode key (Gemini), and
  // a project and location make the SDKs build the full Vertex path without looking elsewhere
  if (type === 'vertex-anthropic') {
    Object.assign(adapterOptions, { project: VERTEX_TEST_PROJECT, region: VERTEX_TEST_LOCATION });
  }
  if (type === 'google' && model.options?.vertexai === true) {
    Object.assign(adapterOptions, { project: VERTEX_TEST_PROJECT, location: VERTEX_TEST_LOCATION });
  }
  if (model.api) adapterOptions.api = model.api;
  Object.assign(adapterOptions, model.options);
  return {
    type,
    base_url: baseUrlFor(type, url),
    ...(type === 'ollama' ? {} : { api_key: options.apiKey ?? SCRIPTED_API_KEY }),
    max_retries: options.maxRetries ?? 0,
    ...(options.timeoutSeconds !== undefined ? { timeout_seconds: options.timeoutSeconds } : {}),
    ...(options.idleTimeoutSeconds !== undefined
      ? { idle_timeout_seconds: options.idleTimeoutSeconds }
      : {}),
    ...(Object.keys(adapterOptions).length > 0 ? { options: adapterOptions } : {}),
  };
}

/** One adapter entry per distinct configuration, keyed by provider (`openai`, `openai_2`, ...). */
function placeAdapter(drafts: AdapterDraft[], provider: string, entry: Record<string, unknown>) {
  const same = drafts.find((d) => JSON.stringify(d.entry) === JSON.stringify(entry));
  if (same) return same.key;
  const taken = new Set(drafts.map((d) => d.key));
  let key = provider;
  for (let n = 2; taken.has(key); n++) key = `${provider}_${n}`;
  drafts.push({ key, entry });
  return key;
}

/**
 * A models.yaml document for `createRuntime` (from `@yourtool/runtime`) whose adapters all
 * reach the scripted provider at `url`: each with its `base_url`, a dummy API key and no
 * retries (unless asked). The first model is the runtime's default when no routing is given.
 *
 * ```ts
 * const runtime = await createRuntime({
 *   models: provider.modelsYaml({
 *     models: { 'anthropic:claude-sonnet-4-6': { aliases: ['sonnet'] }, 'openai:gpt-5': { api: 'responses' } },
 *   }),
 * });
 * ```
 */
export function modelsYaml(url: string, options: ModelsYamlOptions): string {
  const drafts: AdapterDraft[] = [];
  const models: Record<string, Record<string, unknown>> = {};
  for (const [id, model] of Object.entries(options.models)) {
    const { provider, name } = splitId(id);
    const wire = model.wire_name ?? name;
    const adapter = placeAdapter(
      drafts,
      provider,
      adapterEntry({ provider, model, wire }, url, options),
    );
    models[id] = {
      adapter,
      wire_name: wire,
      ...(model.aliases ? { aliases: [...model.aliases] } : {}),
      ...(model.tier ? { tier: model.tier } : {}),
      ...(model.display_name ? { display_name: model.display_name } : {}),
      ...(model.can_delegate !== undefined ? { can_delegate: model.can_delegate } : {}),
      ...(model.capabilities ? { capabilities: { ...model.capabilities } } : {}),
    };
  }
  if (Object.keys(models).length === 0) throw new RangeError('modelsYaml(): no models given');
  const adapters = Object.fromEntries(drafts.map((d) => [d.key, d.entry]));
  return stringify({ adapters, models });
}
