/**
 * What OpenTelemetry costs when an application turns it on: the same adapter stream and the same
 * session turn, with an OpenTelemetry SDK registered (in-memory span exporter, a meter provider,
 * the AsyncLocalStorage context manager) against nothing registered, in one process, the two
 * sides' repetitions interleaved. The SDK is registered before each repetition of ours and
 * unregistered before each of the baseline's, outside the timed part.
 *
 * The cost with nothing registered is what the `streaming/*` and `turn/*` scenarios measure
 * (they register nothing): compare those with a build from before the telemetry was added.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicAdapter } from '@yourtool/anthropic';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { SessionManager } from '@yourtool/session';
import { openStore } from '@yourtool/store';
import {
  check,
  cpuAndWallMeasurements,
  interleave,
  peakRss,
  type RunOptions,
  type ScenarioResult,
  type Variant,
} from '../lib/harness.js';
import {
  canonicalRequest,
  drainCanonical,
  measureStreaming,
  startServer as startStreamServer,
} from '../streaming/bench.js';
import { buildWireStream } from '../streaming/wire.js';
import { MODEL, PROMPT, startServer as startTurnServer, textHistory } from '../turn/bench.js';
import {
  enterContextOnce,
  exportedSpanNames,
  install,
  installContextManager,
  uninstall,
} from './sdk.js';

/**
 * Registers the SDK for our side, unregisters it for the baseline's. `warm`: both sides run with
 * the context manager already in use (its promise hook on), the baseline with no tracer or meter
 * provider: what the library's tracing adds in an application that runs OpenTelemetry.
 */
async function switchTelemetry(variant: Variant, warm: boolean): Promise<void> {
  if (variant === 'ours') {
    await install();
    if (warm) enterContextOnce();
  } else if (warm) await installContextManager();
  else await uninstall();
}

/** The `-warm` rows' title part and note. */
const WARM_BASELINE =
  'the same with only the AsyncLocalStorage context manager registered, in use (a context entered once, as the SDK itself does at its first export), and no tracer or meter provider';
const WARM_NOTE =
  "both sides pay the context manager's promise hook; the ratio is what the tracing itself adds (spans, attributes, metric points, the context entered per call)";

/** What the telemetry scenarios' notes say about where the cost goes. */
const CONTEXT_NOTE =
  "most of the difference is the AsyncLocalStorage context manager: on Node 22 it hooks every promise once a context has been entered (by the call span made active while its request is sent, and by the SDK itself at its first span export), as in any application with OpenTelemetry instrumentation; with `--experimental-async-context-frame` (Node 24's default) the hook is gone (decision 0190)";

const SDK =
  'an OpenTelemetry SDK registered (in-memory span exporter, meter provider, context manager)';

/**
 * `telemetry/streaming`: the Anthropic adapter's long stream, traced against not traced; `warm`
 * is the `telemetry/streaming-warm` row (see {@link switchTelemetry}).
 */
export async function telemetryStreamingScenario(
  options: RunOptions,
  warm = false,
): Promise<ScenarioResult> {
  const wire = buildWireStream('anthropic');
  const server = await startStreamServer();
  try {
    const adapter = new AnthropicAdapter({
      api_key: 'bench',
      base_url: server.url,
      max_retries: 0,
    });
    let spans: string[] = [];
    const stream = () => drainCanonical(adapter.stream(canonicalRequest(MODEL)));
    const { checks, measurements } = await measureStreaming(
      options,
      wire,
      {
        ours: async () => {
          const seen = await stream();
          spans = exportedSpanNames();
          return seen;
        },
        baseline: stream,
      },
      async (variant) => {
        await switchTelemetry(variant, warm);
        await server.enqueue('anthropic');
      },
    );
    // measureStreaming names its sides after the streaming scenarios' (adapter, raw SDK)
    const named = checks.map((c) =>
      c.replace(/^adapter:/, 'traced:').replace(/^SDK:/, 'not traced:'),
    );
    checks.splice(0, checks.length, ...named);
    if (options.only !== 'baseline') {
      check(
        spans.length === 1 && spans[0] === 'chat claude-sonnet-4-6',
        `ours exported ${JSON.stringify(spans)}`,
      );
      checks.push('ours exported one span per call (chat claude-sonnet-4-6)');
    }
    await uninstall();
    return {
      id: warm ? 'telemetry/streaming-warm' : 'telemetry/streaming',
      group: 'telemetry',
      title: `the anthropic adapter's stream of ${wire.dataEvents.toLocaleString('en-US')} wire events with ${SDK}`,
      baseline: warm ? WARM_BASELINE : 'the same stream with no OpenTelemetry SDK registered',
      measurements,
      checks,
      notes: [warm ? WARM_NOTE : CONTEXT_NOTE],
      maxRssBytes: peakRss(),
    };
  } finally {
    await uninstall();
    await server.close();
  }
}

/**
 * `telemetry/turn`: a session turn (one-word reply) on a stored session, traced against not;
 * `warm` is the `-warm` row (see {@link switchTelemetry}).
 */
export async function telemetryTurnScenario(
  size: number,
  options: RunOptions,
  warm = false,
): Promise<ScenarioResult> {
  const server = await startTurnServer();
  const dir = mkdtempSync(join(tmpdir(), 'yourtool-otel-turn-'));
  try {
    const store = await openStore(`sqlite:${join(dir, 'sessions.db')}`);
    const session = await store.createSession({ workspace_path: dir });
    await store.appendMessages(textHistory(session.id, size));
    const registry = ModelRegistry.fromYaml(
      `
adapters:
  anthropic: { type: anthropic, api_key: bench-key, base_url: ${server.url}, max_retries: 0 }
models:
  ${MODEL}: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
      { factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) } },
    );
    const router = new Router({ registry, config: parseRoutingConfig('global_default: sonnet') });
    const manager = new SessionManager({ store, router, pricing: defaultPriceTable() });
    await server.enqueue();
    await manager.sendAndWait(session.id, PROMPT);

    let spans: string[] = [];
    let turns = 0;
    const turn = async () => {
      const result = await manager.sendAndWait(session.id, PROMPT);
      check(result.text === 'Done.', `the turn answered "${result.text}"`);
      turns++;
    };
    const timings = await interleave(
      options,
      {
        ours: async () => {
          await turn();
          spans = exportedSpanNames();
        },
        baseline: turn,
      },
      async (variant) => {
        await switchTelemetry(variant, warm);
        await server.enqueue();
      },
    );
    await uninstall();
    await store.close();
    const checks = [`${turns} turns answered "Done."`];
    if (options.only !== 'baseline') {
      check(
        JSON.stringify([...spans].sort()) ===
          JSON.stringify(['chat claude-sonnet-4-6', 'invoke_agent']),
        `ours exported ${JSON.stringify(spans)}`,
      );
      checks.push(
        'ours exported the turn span and its call span (invoke_agent, chat claude-sonnet-4-6)',
      );
    }
    return {
      id: `telemetry/turn-${size}${warm ? '-warm' : ''}`,
      group: 'telemetry',
      title: `one session turn on a stored SQLite session of ${size.toLocaleString('en')} text messages with ${SDK}`,
      baseline: warm ? WARM_BASELINE : 'the same turn with no OpenTelemetry SDK registered',
      measurements: [...cpuAndWallMeasurements(timings, 'turn')],
      checks,
      notes: [warm ? WARM_NOTE : CONTEXT_NOTE],
      maxRssBytes: peakRss(),
    };
  } finally {
    await uninstall();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
