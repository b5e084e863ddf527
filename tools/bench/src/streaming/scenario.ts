/**
 * The streaming scenarios over the loopback server: `streaming/<provider>` (baseline: the
 * official SDK's raw stream, iterated) and `streaming/<provider>-sdk-accumulator` (baseline: the
 * SDK's own accumulator; accumulators.ts says which SDKs have one). Gemini's is google.ts.
 */
import { peakRss, type RunOptions, type ScenarioResult } from '../lib/harness.js';
import {
  ACCUMULATOR_PROVIDERS,
  type AccumulatorProvider,
  accumulatorContenders,
} from './accumulators.js';
import { measureStreaming, startServer } from './bench.js';
import { type Contenders, rawContenders } from './contenders.js';
import { buildWireStream, type StreamProvider, type WireStream } from './wire.js';

/** The SDK each provider's raw baseline iterates. */
const SDK_NAMES: Record<StreamProvider, string> = {
  anthropic: '@anthropic-ai/sdk',
  openai: 'openai, `chat.completions.create`',
  'openai-responses': 'openai, `responses.create`',
  openrouter: 'openai, `chat.completions.create`',
  ollama: 'ollama',
};

/** The note of the scenarios whose SDK has no accumulator to compare with. */
export const NO_ACCUMULATOR = (sdk: string): string =>
  `the ${sdk} SDK has no accumulator (it hands out chunks only), so this raw baseline is its only one`;

/** `<provider>: N wire events (text deltas, tool calls ...)`. */
function titleOf(provider: StreamProvider, wire: WireStream): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const tools =
    provider === 'ollama'
      ? `${wire.expected.tools.length} tool calls sent whole`
      : `${wire.expected.tools.length} tool calls in ${n(wire.expected.toolFragments)} fragments`;
  return `${provider}: ${n(wire.dataEvents)} wire events (${n(wire.expected.textDeltas)} text deltas, ${tools})`;
}

/** Times `contenders` over `provider`'s long response, served by a loopback server process. */
async function run(
  provider: StreamProvider,
  options: RunOptions,
  contenders: (url: string) => Contenders,
): Promise<{ wire: WireStream } & Pick<ScenarioResult, 'checks' | 'measurements'>> {
  const wire = buildWireStream(provider);
  const server = await startServer();
  try {
    const measured = await measureStreaming(options, wire, contenders(server.url), () =>
      server.enqueue(provider),
    );
    return { wire, ...measured };
  } finally {
    await server.close();
  }
}

/** `streaming/<provider>`: our adapter against iterating the SDK's raw stream. */
export async function streamingScenario(
  provider: StreamProvider,
  options: RunOptions,
): Promise<ScenarioResult> {
  const { wire, checks, measurements } = await run(provider, options, (url) =>
    rawContenders(provider, url),
  );
  return {
    id: `streaming/${provider}`,
    group: 'streaming',
    title: titleOf(provider, wire),
    baseline: `iterating the official SDK's raw stream (${SDK_NAMES[provider]}) over the same bytes`,
    measurements,
    checks,
    notes: provider === 'ollama' ? [NO_ACCUMULATOR('ollama')] : [],
    maxRssBytes: peakRss(),
  };
}

/** `streaming/<provider>-sdk-accumulator`: our adapter against the SDK's own accumulator. */
export async function accumulatorScenario(
  provider: AccumulatorProvider,
  options: RunOptions,
): Promise<ScenarioResult> {
  const { wire, checks, measurements } = await run(provider, options, (url) =>
    accumulatorContenders(provider, url),
  );
  return {
    id: `streaming/${provider}-sdk-accumulator`,
    group: 'streaming',
    title: titleOf(provider, wire),
    baseline: `the official SDK's own accumulator, ${ACCUMULATOR_PROVIDERS[provider]}: its events iterated (deltas counted), then text and tool inputs taken from the final message it built, over the same bytes`,
    measurements,
    checks,
    notes: [],
    maxRssBytes: peakRss(),
  };
}
