import { type Logger, newToolUseId, type StreamEvent, type ToolIdMap } from '@yourtool/core';
import type { StreamBuilder } from '@yourtool/core/adapter';
import type OpenAI from 'openai';

interface ToolCallState {
  index: number;
  key: string;
  started: boolean;
  providerId: string | undefined;
  name: string | undefined;
  pending: string[];
}

/** What {@link StreamedToolCalls} needs from its stream mapper. */
export interface StreamedToolCallsOptions {
  /** Provider key of the tool id map and log entries. */
  provider: string;
  toolIdMap: ToolIdMap;
  logger: Logger;
  /** Events that must come before a tool use begins (text held back for a stop sequence). */
  beforeStart: (builder: StreamBuilder) => StreamEvent[];
  /** Reads a called function's name back as canonical (decision 0140). Default: as it came. */
  toolName?: (wireName: string) => string;
}

/**
 * The tool calls of one Chat Completions stream, keyed by call index: a call starts once it
 * names its function (fragments that came before are replayed then), its fragments go to its
 * own block whenever they arrive, and every call ends at the finish, in index order, because
 * the fragments of parallel calls may interleave.
 */
export class StreamedToolCalls {
  readonly #options: StreamedToolCallsOptions;
  readonly #calls = new Map<number, ToolCallState>();

  /** Creates the tracker for one stream. */
  constructor(options: StreamedToolCallsOptions) {
    this.#options = options;
  }

  /** One `delta.tool_calls[i]`: starts its call when it can, passes its fragment on. */
  delta(
    builder: StreamBuilder,
    call: OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall,
  ): StreamEvent[] {
    if (call.type === 'custom' || call.custom) {
      this.#options.logger.warn(
        {
          event: 'block_dropped',
          adapter: this.#options.provider,
          block_type: 'custom_tool_call',
          reason: 'no canonical block for it',
        },
        'dropped a streamed custom tool call: the canonical format has no such block',
      );
      return [];
    }
    const state = this.#state(call.index ?? 0);
    if (call.id && !state.providerId) state.providerId = call.id;
    if (call.function?.name && !state.name) state.name = call.function.name;
    const fragment = call.function?.arguments ?? '';
    const events: StreamEvent[] = [];
    if (!state.started) {
      if (!state.name) {
        if (fragment !== '') state.pending.push(fragment);
        return events;
      }
      events.push(...this.#start(builder, state));
    }
    if (fragment !== '') events.push(...builder.toolInput(state.key, fragment));
    return events;
  }

  /** `tool.use_end` for every started call, in index order; a call never named is dropped (WARN). */
  endAll(builder: StreamBuilder): StreamEvent[] {
    const events: StreamEvent[] = [];
    for (const state of [...this.#calls.values()].sort((a, b) => a.index - b.index)) {
      if (state.started) events.push(...builder.toolEnd(state.key));
      else {
        this.#options.logger.warn(
          {
            event: 'block_dropped',
            adapter: this.#options.provider,
            block_type: 'tool_use',
            reason: 'the tool call never named its function',
          },
          'dropped a streamed tool call without a function name',
        );
      }
    }
    return events;
  }

  #canonicalName(wireName: string): string {
    return this.#options.toolName ? this.#options.toolName(wireName) : wireName;
  }

  #state(index: number): ToolCallState {
    let state = this.#calls.get(index);
    if (!state) {
      state = {
        index,
        key: `tool:${index}`,
        started: false,
        providerId: undefined,
        name: undefined,
        pending: [],
      };
      this.#calls.set(index, state);
    }
    return state;
  }

  #start(builder: StreamBuilder, state: ToolCallState): StreamEvent[] {
    const { provider, toolIdMap } = this.#options;
    const canonical = state.providerId
      ? toolIdMap.toCanonical(provider, state.providerId)
      : newToolUseId();
    const events = [
      ...this.#options.beforeStart(builder),
      ...builder.toolStart(state.key, canonical, this.#canonicalName(state.name ?? '')),
    ];
    state.started = true;
    for (const fragment of state.pending) events.push(...builder.toolInput(state.key, fragment));
    state.pending = [];
    return events;
  }
}
