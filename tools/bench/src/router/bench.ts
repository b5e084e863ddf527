import { AnthropicAdapter } from '@yourtool/anthropic';
import {
  type AdapterCapabilities,
  createEventBus,
  createMessage,
  type Message,
  newSessionId,
  type ProviderAdapter,
} from '@yourtool/core';
import { OllamaAdapter } from '@yourtool/ollama';
import { OpenAIAdapter } from '@yourtool/openai';
import { OpenRouterAdapter } from '@yourtool/openrouter';
import {
  type AdapterFactory,
  AvailabilityTracker,
  ModelRegistry,
  parseRoutingConfig,
  type RouteInput,
  Router,
} from '@yourtool/router';
import {
  check,
  interleave,
  peakRss,
  type RunOptions,
  type ScenarioResult,
} from '../lib/harness.js';
import { BENCH_TOOLS, buildSession, prng, words } from '../lib/session.js';

/** Decisions per timed repetition. */
const DECISIONS = 1_500;

const FACTORIES: Record<string, AdapterFactory> = {
  anthropic: (config, runtime) => new AnthropicAdapter(config, runtime),
  openai: (config, runtime) => new OpenAIAdapter(config, runtime),
  openrouter: (config, runtime) => new OpenRouterAdapter(config, runtime),
  ollama: (config, runtime) => new OllamaAdapter(config, runtime),
};

/** (wire name, tier, extra YAML) per provider; repeated with suffixes up to 50 models. */
const FAMILIES: Record<string, Array<[string, string, string?]>> = {
  anthropic: [
    ['claude-opus-4-6', 'deep'],
    ['claude-sonnet-4-6', 'balanced'],
    ['claude-haiku-4-5', 'fast'],
    ['claude-sonnet-4-5', 'vision'],
  ],
  openai: [
    ['gpt-5', 'deep'],
    ['gpt-5-mini', 'balanced'],
    ['gpt-5-nano', 'fast'],
    ['gpt-4.1', 'vision'],
  ],
  openrouter: [
    ['anthropic/claude-sonnet-4.6', 'balanced'],
    ['deepseek/deepseek-v3', 'deep'],
    ['meta-llama/llama-3.3-70b-instruct', 'fast'],
    ['google/gemini-2.5-flash', 'vision'],
  ],
  ollama: [
    ['llama3.2', 'local', '{ supports_tools: true, max_context_tokens: 32768 }'],
    [
      'qwen3:8b',
      'local',
      '{ supports_tools: true, supports_thinking: true, max_context_tokens: 40960 }',
    ],
    [
      'qwen3-vl:8b',
      'vision',
      '{ supports_tools: true, supports_images: true, max_context_tokens: 65536 }',
    ],
  ],
};
const COUNTS: Record<string, number> = { anthropic: 13, openai: 13, openrouter: 13, ollama: 11 };

/** models.yaml of 50 models over the four adapter types. */
export function registryYaml(): string {
  const lines = [
    'adapters:',
    '  anthropic: { type: anthropic, api_key: bench }',
    '  openai: { type: openai, api_key: bench }',
    '  openrouter: { type: openrouter, api_key: bench }',
    '  ollama: { type: ollama, options: { detect_capabilities: false } }',
    'models:',
  ];
  const aliases = new Set<string>();
  for (const [provider, families] of Object.entries(FAMILIES)) {
    for (let i = 0; i < (COUNTS[provider] ?? 0); i++) {
      const [wire, tier, caps] = families[i % families.length] as [string, string, string?];
      const round = Math.floor(i / families.length);
      const id = `${provider}:${wire}${round === 0 ? '' : `-r${round}`}`;
      const name = `${provider}-${tier}`;
      const alias = aliases.has(name) ? '' : `, aliases: ["${name}"]`;
      aliases.add(name);
      lines.push(
        `  "${id}": { adapter: ${provider}, wire_name: "${wire}", tier: ${tier}, can_delegate: ${tier !== 'fast'}${alias}${caps ? `, capabilities: ${caps}` : ''} }`,
      );
    }
  }
  return lines.join('\n');
}

/** routing.yaml: workspace defaults and rules on images, thinking, text, size, tier, schema. */
export const ROUTING_YAML = `
global_default: anthropic-balanced
workspaces:
  - path: /repo/local
    default: ollama-local
  - path: /repo/app
    default: openai-balanced
rules:
  - name: images-to-vision
    when: { needs_images: true }
    use_tier: vision
  - name: thinking-to-deep
    when: { needs_thinking: true }
    use_tier: deep
  - name: design-work
    when: { message_matches: "\\\\b(refactor|architecture|design)\\\\b" }
    use: anthropic-deep
  - name: structured-output
    when: { needs_structured_output: true }
    use: openai-deep
  - name: local-workspace
    when: { workspace: /repo/local, needs_images: false }
    use_tier: local
  - name: quick-questions
    when: { max_estimated_tokens: 400, needs_tools: false }
    use_tier: fast
  - name: huge-context
    when: { min_estimated_tokens: 150000 }
    use_tier: deep
`;

/** Eight kinds of turn, each routed to a different place by a different step of the chain. */
function inputs(): RouteInput[] {
  const random = prng(11);
  const session_id = newSessionId();
  const user = (text: string): Message =>
    createMessage({ session_id, role: 'user', content: [{ type: 'text', text }] });
  const withTools = buildSession({ sessionId: session_id, messages: 20 });
  const withImages = buildSession({ sessionId: session_id, messages: 30, imageBytes: 2_000 });
  const plain = [user(words(random, 30)), user(words(random, 10))];
  const base = { session_id, max_output_tokens: 4_096 };
  return [
    { ...base, messages: plain },
    { ...base, messages: withImages, tools: BENCH_TOOLS },
    {
      ...base,
      messages: [...withTools, user('think it through')],
      tools: BENCH_TOOLS,
      thinking: true,
    },
    {
      ...base,
      messages: [...withTools, user('please refactor the parser module')],
      tools: BENCH_TOOLS,
    },
    { ...base, messages: plain, workspace_path: '/repo/local/service' },
    { ...base, messages: withTools, tools: BENCH_TOOLS, output_schema: { type: 'object' } },
    { ...base, messages: withTools, tools: BENCH_TOOLS, sticky: 'openai-fast' },
    // the override cannot take images: with fallthrough the chain goes on to the vision rule
    // (without it an explicit choice is strict and refuses the turn, decision 0091)
    {
      ...base,
      messages: withImages,
      tools: BENCH_TOOLS,
      override: 'ollama-local',
      fallthrough: true,
    },
  ];
}

interface Needs {
  images: string[];
  tools: boolean;
  system: boolean;
}

/** A plain scan of the history: what any capability check has to know. */
function needsOf(input: RouteInput): Needs {
  const needs: Needs = { images: [], tools: (input.tools?.length ?? 0) > 0, system: false };
  for (const m of input.messages) {
    if (m.role === 'system') needs.system = true;
    for (const b of m.content) {
      if (b.type === 'image') needs.images.push(b.media_type);
      else if (b.type === 'tool_use') needs.tools = true;
      else if (b.type === 'tool_result') {
        needs.tools = true;
        for (const c of b.content) if (c.type === 'image') needs.images.push(c.media_type);
      }
    }
  }
  return needs;
}

/** Plain capability comparisons of one candidate. */
function fits(caps: AdapterCapabilities, needs: Needs, input: RouteInput, estimate: number) {
  if (needs.images.length > 0) {
    if (!caps.supports_images) return false;
    if (
      caps.accepted_image_media_types.length > 0 &&
      !needs.images.every((t) => caps.accepted_image_media_types.includes(t))
    )
      return false;
  }
  if (needs.tools && !caps.supports_tools) return false;
  if (input.thinking && !caps.supports_thinking) return false;
  if (input.output_schema && !caps.supports_structured_output) return false;
  if ((needs.system || input.system_prompt) && !caps.supports_system_prompt) return false;
  if (input.max_output_tokens > caps.max_output_tokens) return false;
  return estimate + input.max_output_tokens <= caps.max_context_tokens;
}

/** The router benchmark: decisions per second on a 50-model registry with rules. */
export async function routerScenario(options: RunOptions): Promise<ScenarioResult> {
  const registry = ModelRegistry.fromYaml(registryYaml(), { factories: FACTORIES });
  check(registry.models().length === 50, `the registry has ${registry.models().length} models`);
  const router = new Router({
    registry,
    config: parseRoutingConfig(ROUTING_YAML),
    availability: new AvailabilityTracker(),
    bus: createEventBus(),
  });
  const turns = inputs();
  // The baseline's candidate lists: every model the router's chain tried for the turn, in order,
  // with capabilities and adapters looked up once, up front.
  const caps = new Map<string, AdapterCapabilities>();
  const adapters = new Map<string, ProviderAdapter>();
  for (const m of registry.models()) {
    caps.set(m.id, registry.capabilitiesFor(m.id));
    adapters.set(m.id, registry.adapterFor(m.id));
  }
  const decisions = turns.map((input) => router.route(input));
  const candidates = decisions.map((d) =>
    d.trace.flatMap((t) => (t.model === null ? [] : [t.model])),
  );
  const plainLoop = (i: number): string | null => {
    const input = turns[i] as RouteInput;
    const needs = needsOf(input);
    const estimates = new Map<ProviderAdapter, number>();
    for (const id of candidates[i] as string[]) {
      const adapter = adapters.get(id) as ProviderAdapter;
      let estimate = estimates.get(adapter);
      if (estimate === undefined) {
        estimate = adapter.estimateInputTokens(
          input.messages,
          input.tools ?? [],
          input.system_prompt,
        );
        estimates.set(adapter, estimate);
      }
      if (fits(caps.get(id) as AdapterCapabilities, needs, input, estimate)) return id;
    }
    return null;
  };
  const policies = new Set(decisions.map((d) => d.policy));
  decisions.forEach((d, i) => {
    check(
      plainLoop(i) === d.model,
      `turn ${i}: the plain loop chose ${plainLoop(i)}, the router ${d.model}`,
    );
  });

  let chosen = 0;
  const timings = await interleave(options, {
    ours: () => {
      for (let n = 0; n < DECISIONS; n++)
        chosen +=
          router.route(turns[n % turns.length] as RouteInput).estimated_input_tokens > 0 ? 1 : 0;
    },
    baseline: () => {
      for (let n = 0; n < DECISIONS; n++) chosen += plainLoop(n % turns.length) ? 1 : 0;
    },
  });
  check(chosen > 0, 'no decision was made');
  const ours = timings.ours.map((t) => t.wallMs);
  const baseline = timings.baseline.map((t) => t.wallMs);
  const rate = (ms: number) => DECISIONS / (ms / 1000);
  return {
    id: 'router/route',
    group: 'router',
    title: `router.route on 50 models (4 adapter types, real adapters), 7 rules, 8 kinds of turn (histories of 2–31 messages)`,
    baseline:
      "a plain loop over the candidates the router's chain tried for the turn: capability comparisons on capabilities looked up in advance, one token estimate per adapter",
    measurements: [
      {
        metric: 'decisions/s',
        ours: ours.map(rate),
        baseline: baseline.map(rate),
        higherIsBetter: true,
      },
    ],
    checks: [
      `the plain loop picks the router's model for all ${turns.length} turns; chain steps deciding: ${[...policies].join(', ')}; ${candidates.reduce((n, c) => n + c.length, 0)} candidates checked per round of ${turns.length}`,
    ],
    notes: [`${DECISIONS.toLocaleString('en-US')} decisions per repetition`],
    maxRssBytes: peakRss(),
  };
}
