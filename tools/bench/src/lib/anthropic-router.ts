import Anthropic from '@anthropic-ai/sdk';
import { AnthropicAdapter } from '@yourtool/anthropic';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';

/** The model the bench's Anthropic scenarios route every turn to. */
export const BENCH_MODEL = 'anthropic:claude-sonnet-4-6';

/** A router sending every turn to {@link BENCH_MODEL} on the loopback server at `url`. */
export function anthropicBenchRouter(url: string): Router {
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic: { type: anthropic, api_key: bench-key, base_url: ${url}, max_retries: 0 }
models:
  ${BENCH_MODEL}: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
    { factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) } },
  );
  return new Router({ registry, config: parseRoutingConfig('global_default: sonnet') });
}

/** The raw SDK client the baselines use against the loopback server at `url`: no retries, no logs. */
export function rawBenchClient(url: string): Anthropic {
  return new Anthropic({ apiKey: 'bench-key', baseURL: url, maxRetries: 0, logLevel: 'off' });
}
