import { AnthropicWireMemory, toAnthropicParams } from '@yourtool/anthropic/codec';
import { type CanonicalRequest, newRequestId, newSessionId, ToolIdMap } from '@yourtool/core';
import { HistoryMemo, normalizeRequest } from '@yourtool/core/adapter';
import { OllamaAdapter } from '@yourtool/ollama';
import { toOllamaChatRequest } from '@yourtool/ollama/codec';
import { OpenAIAdapter } from '@yourtool/openai';
import { toOpenAIChatParams } from '@yourtool/openai/codec';
import { OpenRouterAdapter } from '@yourtool/openrouter';
import { toOpenRouterParams } from '@yourtool/openrouter/codec';
import {
  check,
  interleave,
  peakRss,
  type RunOptions,
  type ScenarioResult,
} from '../lib/harness.js';
import { BENCH_TOOLS, buildSession } from '../lib/session.js';

/** The request codecs measured (plus core's request validation, which every call runs first). */
export const CODEC_TARGETS = ['anthropic', 'openai', 'openrouter', 'ollama', 'validate'] as const;
/** One of {@link CODEC_TARGETS}. */
export type CodecTarget = (typeof CODEC_TARGETS)[number];

const MESSAGES = 1_000;
/** Encodings per timed repetition, so one repetition lasts long enough to time. */
const ITERATIONS = 30;

const MODELS: Record<CodecTarget, string> = {
  anthropic: 'anthropic:claude-sonnet-4-6',
  openai: 'openai:gpt-5',
  openrouter: 'openrouter:anthropic/claude-sonnet-4.6',
  ollama: 'ollama:qwen3-vl:8b',
  validate: 'anthropic:claude-sonnet-4-6',
};

/**
 * One adapter's pure request codec, called as its adapter calls it (same options, the model's
 * real capabilities), returning the body that goes on the wire. The session's tool-id map, and
 * what an adapter remembers between requests, are kept across calls, as in a running session.
 */
function encoderFor(target: CodecTarget, request: CanonicalRequest): () => unknown {
  const toolIdMap = new ToolIdMap();
  const historyMemo = new HistoryMemo();
  switch (target) {
    case 'anthropic': {
      const memory = new AnthropicWireMemory();
      const options = { wireName: 'claude-sonnet-4-6' };
      return () => toAnthropicParams(request, { toolIdMap, options, memory }).params;
    }
    case 'openai': {
      const capabilities = new OpenAIAdapter({ api_key: 'bench' }).capabilitiesFor(request.model);
      return () =>
        toOpenAIChatParams(request, { wireName: 'gpt-5', capabilities, toolIdMap, historyMemo })
          .params;
    }
    case 'openrouter': {
      const capabilities = new OpenRouterAdapter({ api_key: 'bench' }).capabilitiesFor(
        request.model,
      );
      return () => {
        const encoding = toOpenRouterParams(request, {
          wireName: 'anthropic/claude-sonnet-4.6',
          capabilities,
          toolIdMap,
          historyMemo,
        });
        return { ...encoding.params, ...encoding.extraBody };
      };
    }
    case 'ollama': {
      // a vision and tools model, as /api/show would report it: nothing is dropped
      const capabilities = new OllamaAdapter(
        { options: { detect_capabilities: false } },
        {
          capabilityOverrides: {
            [request.model]: {
              supports_images: true,
              supports_tools: true,
              max_context_tokens: 131_072,
            },
          },
        },
      ).capabilitiesFor(request.model);
      return () =>
        toOllamaChatRequest(request, {
          toolIdMap,
          historyMemo,
          capabilities,
          options: { wireName: 'qwen3-vl:8b', numCtx: capabilities.max_context_tokens },
        }).params;
    }
    case 'validate':
      return () => normalizeRequest(request);
  }
}

/** The request codec benchmark of one adapter: canonical → wire for a 1,000-message session. */
export async function codecScenario(
  target: CodecTarget,
  options: RunOptions,
): Promise<ScenarioResult> {
  const session = buildSession({ sessionId: newSessionId(), messages: MESSAGES });
  const request = normalizeRequest({
    request_id: newRequestId(),
    model: MODELS[target],
    messages: session,
    tools: BENCH_TOOLS,
    system_prompt: 'You are a careful coding assistant.',
    max_output_tokens: 4_096,
  });
  const encode = encoderFor(target, request);
  const body = encode();
  const bodyBytes = Buffer.byteLength(JSON.stringify(body));
  const wireMessages =
    target === 'validate' ? MESSAGES : ((body as { messages?: unknown[] }).messages?.length ?? 0);
  check(wireMessages > 0, `${target}: the codec produced no messages`);
  const counts = { images: 0, toolUses: 0, toolResults: 0 };
  for (const m of session) {
    for (const b of m.content) {
      if (b.type === 'image') counts.images++;
      else if (b.type === 'tool_use') counts.toolUses++;
      else if (b.type === 'tool_result') {
        counts.toolResults++;
        counts.images += b.content.filter((c) => c.type === 'image').length;
      }
    }
  }
  // images are in the wire body: base64 data of every image appears in it
  const json = JSON.stringify(body);
  let sink = 0;
  const timings = await interleave(options, {
    ours: () => {
      for (let i = 0; i < ITERATIONS; i++) sink += (encode() as object) ? 1 : 0;
    },
    baseline: () => {
      for (let i = 0; i < ITERATIONS; i++) sink += JSON.stringify(body).length;
    },
  });
  check(sink > 0, 'nothing ran');
  const rate = (ms: number) => (MESSAGES * ITERATIONS) / (ms / 1000);
  const ours = timings.ours.map((t) => t.wallMs);
  const baseline = timings.baseline.map((t) => t.wallMs);
  const label = target === 'validate' ? 'core normalizeRequest (zod)' : `${target} request codec`;
  return {
    id: `codec/${target}`,
    group: 'codec',
    title:
      target === 'validate'
        ? `core: request validation (normalizeRequest) of the ${MESSAGES.toLocaleString('en-US')}-message session`
        : `${target}: ${MESSAGES.toLocaleString('en-US')} canonical messages → ${wireMessages.toLocaleString('en-US')} wire messages (${(bodyBytes / 1e6).toFixed(2)} MB body)`,
    baseline:
      target === 'validate'
        ? 'JSON.stringify of the same canonical request'
        : 'JSON.stringify of the body the codec produced',
    measurements: [
      {
        metric: `${label}: messages/s`,
        ours: ours.map(rate),
        baseline: baseline.map(rate),
        higherIsBetter: true,
      },
    ],
    checks: [
      `session: ${MESSAGES} messages, ${counts.toolUses} tool uses, ${counts.toolResults} tool results, ${counts.images} base64 images; every image's data is in the body: ${session.every((m) => m.content.every((b) => b.type !== 'image' || json.includes(b.source.data.slice(0, 64)))) || target === 'validate'}`,
    ],
    notes: [`${ITERATIONS} encodings per repetition; the session's tool-id map is reused`],
    maxRssBytes: peakRss(),
  };
}
