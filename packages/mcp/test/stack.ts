import { AnthropicAdapter } from '@yourtool/anthropic';
import { createEventBus, type Logger, type ToolHandler } from '@yourtool/core';
import { MemorySessionStore } from '@yourtool/core/memory-store';
import { GoogleAdapter } from '@yourtool/google';
import { OpenAIAdapter } from '@yourtool/openai';
import { defaultPriceTable } from '@yourtool/pricing';
import {
  type AdapterFactory,
  ModelRegistry,
  parseRegistryConfig,
  parseRoutingConfig,
  Router,
} from '@yourtool/router';
import { SessionManager, ToolRegistry } from '@yourtool/session';
import type { ScriptedProvider } from '@yourtool/testing';

/** Claude, GPT-5 (Responses), Gemini and GPT-4.1 (Chat Completions), each reached through its real SDK at the scripted provider. */
export const MODELS = {
  'anthropic:claude-sonnet-4-6': { aliases: ['claude'] },
  'openai:gpt-5': { aliases: ['gpt5'], api: 'responses' as const },
  'google:gemini-2.5-flash': { aliases: ['gemini'] },
  'openai:gpt-4.1': { aliases: ['gpt41'] },
};

const FACTORIES: Record<string, AdapterFactory> = {
  anthropic: (config, runtime) => new AnthropicAdapter(config, runtime),
  openai: (config, runtime) => new OpenAIAdapter(config, runtime),
  google: (config, runtime) => new GoogleAdapter(config, runtime),
};

/**
 * The stack `createRuntime` builds, assembled by hand (the runtime depends on this package, so
 * its tests cannot use it): registry, router, store, prices, and a session manager offering
 * `tools` with every confirmation granted.
 */
export function sessionStack(provider: ScriptedProvider, tools: ToolHandler[], logger: Logger) {
  const registry = new ModelRegistry(parseRegistryConfig(provider.modelsYaml({ models: MODELS })), {
    factories: FACTORIES,
    env: {},
    logger,
  });
  const bus = createEventBus();
  const router = new Router({
    registry,
    bus,
    logger,
    config: parseRoutingConfig({ global_default: 'claude' }),
  });
  const store = new MemorySessionStore();
  const sessions = new SessionManager({
    store,
    router,
    pricing: defaultPriceTable(),
    bus,
    logger,
    tools: new ToolRegistry(tools),
    confirm: () => true,
  });
  return { sessions, store, close: () => registry.close() };
}
