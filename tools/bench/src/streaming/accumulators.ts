/**
 * The second baseline of the streaming benchmark: the SDK's own accumulator, which is what a
 * user who wants the whole message (text and parsed tool inputs) as well as the deltas calls.
 * Each `streaming/<provider>-sdk-accumulator` scenario iterates the helper's events (counting
 * the deltas, as the raw scenarios do), then takes the text and the tool inputs from the final
 * message it built; ours is the same adapter stream as in the raw scenario.
 *
 * - Anthropic: `client.messages.stream(params)`, then `stream.finalMessage()`.
 * - OpenAI Chat Completions: `client.chat.completions.stream(params)`, then
 *   `stream.finalChatCompletion()`.
 * - OpenAI Responses: `client.responses.stream(params)`, then `stream.finalResponse()`.
 *
 * Gemini (`@google/genai`) and Ollama (`ollama`) have no accumulator: their SDKs only hand out
 * the chunks (`generateContentStream`, `chat({ stream: true })`), so their raw scenarios are
 * their only baseline. OpenRouter is served through the `openai` SDK's Chat Completions
 * helper, which `streaming/openai-sdk-accumulator` already measures.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import {
  anthropicClient,
  type Contenders,
  nothingSeen,
  openAIClient,
  ourRun,
  SDK_PARAMS,
  type StreamRun,
  wireModel,
} from './contenders.js';

/** The providers whose SDK has an accumulator, and what it is called. */
export const ACCUMULATOR_PROVIDERS = {
  anthropic: '@anthropic-ai/sdk `client.messages.stream()` then `finalMessage()`',
  openai: 'openai `client.chat.completions.stream()` then `finalChatCompletion()`',
  'openai-responses': 'openai `client.responses.stream()` then `finalResponse()`',
} as const;
/** A key of {@link ACCUMULATOR_PROVIDERS}. */
export type AccumulatorProvider = keyof typeof ACCUMULATOR_PROVIDERS;

/** `client.messages.stream()`: deltas counted on the way, content from `finalMessage()`. */
function anthropicAccumulator(client: Anthropic): StreamRun {
  return async () => {
    const seen = nothingSeen();
    const stream = client.messages.stream(SDK_PARAMS.anthropic);
    for await (const event of stream) {
      if (event.type !== 'content_block_delta') continue;
      if (event.delta.type === 'text_delta' && event.delta.text !== '') seen.textDeltas++;
      else if (event.delta.type === 'input_json_delta' && event.delta.partial_json !== '') {
        seen.toolFragments++;
      }
    }
    const message = await stream.finalMessage();
    for (const block of message.content) {
      if (block.type === 'text') seen.text += block.text;
      else if (block.type === 'tool_use') {
        seen.tools.push({ name: block.name, input: block.input as Record<string, unknown> });
      }
    }
    return seen;
  };
}

/** `client.chat.completions.stream()`: deltas counted, content from `finalChatCompletion()`. */
function chatAccumulator(client: OpenAI): StreamRun {
  return async () => {
    const seen = nothingSeen();
    const stream = client.chat.completions.stream({
      ...SDK_PARAMS.chat,
      model: wireModel('openai'),
    });
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      if (!delta) continue;
      if (delta.content) seen.textDeltas++;
      for (const call of delta.tool_calls ?? []) if (call.function?.arguments) seen.toolFragments++;
    }
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0]?.message;
    seen.text = message?.content ?? '';
    for (const call of message?.tool_calls ?? []) {
      if (call.type !== 'function') continue;
      seen.tools.push({ name: call.function.name, input: JSON.parse(call.function.arguments) });
    }
    return seen;
  };
}

/** `client.responses.stream()`: deltas counted, content from `finalResponse()`. */
function responsesAccumulator(client: OpenAI): StreamRun {
  return async () => {
    const seen = nothingSeen();
    const stream = client.responses.stream(SDK_PARAMS.responses);
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta' && event.delta !== '') seen.textDeltas++;
      else if (event.type === 'response.function_call_arguments.delta' && event.delta !== '') {
        seen.toolFragments++;
      }
    }
    const response = await stream.finalResponse();
    for (const item of response.output) {
      if (item.type === 'message') {
        for (const part of item.content) if (part.type === 'output_text') seen.text += part.text;
      } else if (item.type === 'function_call') {
        seen.tools.push({ name: item.name, input: JSON.parse(item.arguments) });
      }
    }
    return seen;
  };
}

/** Baseline (the SDK's accumulator) and ours (as in the raw scenario) for one provider. */
export function accumulatorContenders(provider: AccumulatorProvider, url: string): Contenders {
  const baseline =
    provider === 'anthropic'
      ? anthropicAccumulator(anthropicClient(url))
      : provider === 'openai'
        ? chatAccumulator(openAIClient(provider, url))
        : responsesAccumulator(openAIClient(provider, url));
  return { baseline, ours: ourRun(provider, url) };
}
