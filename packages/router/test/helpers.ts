import {
  type AdapterCapabilities,
  type AdapterConfigInput,
  type CallRunnerOptions,
  type CanonicalResponse,
  createMessage,
  type Message,
  newSessionId,
  type ProviderAdapter,
  type StreamEvent,
  type ToolDefinition,
} from '@yourtool/core';
import { estimateRequestTokens } from '@yourtool/core/adapter';
import { PNG_1PX_BASE64 } from '@yourtool/testkit';
import type { AdapterFactory } from '../src/index.js';

export const FULL: AdapterCapabilities = {
  supports_images: true,
  supports_thinking: true,
  supports_tools: true,
  supports_system_prompt: true,
  supports_structured_output: true,
  supports_streaming: true,
  supports_streaming_tool_calls: true,
  supports_parallel_tool_calls: true,
  supports_prompt_caching: true,
  max_context_tokens: 200_000,
  max_output_tokens: 64_000,
  accepted_image_media_types: ['image/png', 'image/jpeg'],
};

/**
 * An adapter that only declares capabilities: the router never calls a provider, it reads
 * capabilities and asks for estimates. Calls fail loudly if anything tries.
 */
export class DeclaringAdapter implements ProviderAdapter {
  readonly name: string;
  readonly config: AdapterConfigInput;
  readonly runtime: CallRunnerOptions & { wireNames: Record<string, string> };
  closed = false;

  constructor(
    name: string,
    config: AdapterConfigInput,
    runtime: CallRunnerOptions & { wireNames: Record<string, string> },
    private readonly perModel: Record<string, Partial<AdapterCapabilities>> = {},
  ) {
    this.name = name;
    this.config = config;
    this.runtime = runtime;
  }
  get capabilities() {
    return FULL;
  }
  capabilitiesFor(model: string): AdapterCapabilities {
    return { ...FULL, ...this.perModel[model], ...this.runtime.capabilityOverrides?.[model] };
  }
  complete(): Promise<CanonicalResponse> {
    throw new Error('the router must not call providers');
  }
  // biome-ignore lint/correctness/useYield: never called
  async *stream(): AsyncGenerator<StreamEvent> {
    throw new Error('the router must not call providers');
  }
  estimateInputTokens(
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    system: string | null | undefined,
  ): number {
    return estimateRequestTokens(messages, tools, system);
  }
  async cancel() {
    return false;
  }
  async close() {
    this.closed = true;
  }
}

export const factories = (
  perModel: Record<string, Partial<AdapterCapabilities>> = {},
): Record<string, AdapterFactory> => ({
  anthropic: (config, runtime) => new DeclaringAdapter('anthropic', config, runtime, perModel),
  openai: (config, runtime) => new DeclaringAdapter('openai', config, runtime, perModel),
  ollama: (config, runtime) => new DeclaringAdapter('ollama', config, runtime, perModel),
});

export const MODELS_YAML = `
adapters:
  anthropic:
    type: anthropic
    api_key_env: ANTHROPIC_API_KEY
    base_url: https://api.anthropic.com
    timeout_seconds: 600
    idle_timeout_seconds: 45
    max_retries: 2
  openai:
    type: openai
    api_key_env: OPENAI_API_KEY
    base_url: https://api.openai.com
    timeout_seconds: 600
    max_retries: 2
  ollama:
    type: ollama
    base_url: http://127.0.0.1:11434
models:
  anthropic:claude-opus-4-7:
    adapter: anthropic
    wire_name: claude-opus-4-7
    tier: deep
    can_delegate: true
    aliases: [opus, deep]
  anthropic:claude-sonnet-4-6:
    adapter: anthropic
    wire_name: claude-sonnet-4-6
    tier: balanced
    can_delegate: true
    aliases: [sonnet, balanced]
  anthropic:claude-haiku-4-5:
    adapter: anthropic
    wire_name: claude-haiku-4-5
    tier: fast
    can_delegate: false
    aliases: [haiku, fast]
    display_name: Claude Haiku 4.5
  openai:gpt-5:
    adapter: openai
    wire_name: gpt-5
    tier: balanced
    can_delegate: true
    aliases: [gpt5]
  openai:gpt-5-mini:
    adapter: openai
    wire_name: gpt-5-mini
    tier: fast
    can_delegate: true
    aliases: [gpt5-mini]
  ollama:llama3.2:3b:
    adapter: ollama
    wire_name: llama3.2:3b
    tier: local
    aliases: [llama]
    display_name: Llama 3.2 3B
    capabilities:
      supports_images: false
      supports_tools: false
      max_context_tokens: 8192
      max_output_tokens: 2048
`;

export const ENV = { ANTHROPIC_API_KEY: 'sk-ant-test', OPENAI_API_KEY: 'sk-test' };

export const session_id = newSessionId();
export const user = (text: string, extra: Message['content'] = []) =>
  createMessage({ session_id, role: 'user', content: [{ type: 'text', text }, ...extra] });
export const PNG = PNG_1PX_BASE64;
export const image = (media_type = 'image/png') =>
  ({ type: 'image', source: { kind: 'base64', data: PNG }, media_type }) as const;

/** Conservative capabilities an adapter reports before it has asked the provider. */
export const UNDETECTED: Partial<AdapterCapabilities> = {
  supports_images: false,
  supports_tools: false,
  supports_thinking: false,
  max_context_tokens: 4096,
  max_output_tokens: 4096,
};

/** What the fake provider "says" about a model when asked. */
export const DETECTED: Partial<AdapterCapabilities> = {
  supports_images: true,
  supports_tools: true,
  max_context_tokens: 131_072,
  max_output_tokens: 8192,
};

/**
 * An adapter that learns capabilities only through `detectCapabilities` (like Ollama's
 * `/api/show`): conservative before, the detected values after. `gate` holds detections until
 * released; `failing` models reject; it counts calls and ignores the signal on purpose, so the
 * router's own abort handling is what a test sees.
 */
export class DetectingAdapter extends DeclaringAdapter {
  readonly detected = new Set<string>();
  readonly calls: string[] = [];
  readonly failing = new Set<string>();
  /** When set, every detection fails with this error (the server is down). */
  down: Error | undefined;
  gate: Promise<void> = Promise.resolve();

  override capabilitiesFor(model: string): AdapterCapabilities {
    return { ...FULL, ...(this.detected.has(model) ? DETECTED : UNDETECTED) };
  }
  async detectCapabilities(model: string): Promise<AdapterCapabilities> {
    this.calls.push(model);
    await this.gate;
    if (this.down) throw this.down;
    if (this.failing.has(model))
      throw new Error(`model "${model}" not found, try pulling it first`);
    this.detected.add(model);
    return this.capabilitiesFor(model);
  }
  capabilitiesDetected(model: string): boolean {
    return this.detected.has(model);
  }
}
