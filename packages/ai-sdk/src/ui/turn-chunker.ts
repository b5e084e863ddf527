import type { Message, StopReason } from '@yourtool/core';
import type { SessionEvent, TurnResult } from '@yourtool/session';
import type { ChatMessageMetadata, UiChunk, UiFinishReason, UiProtocol } from './chunks.js';
import { addDecimal } from './decimal.js';
import { publicErrorText } from './error-text.js';
import { toolResultOutput } from './tool-output.js';

/** Options of {@link TurnChunker}. */
export interface TurnChunkerOptions {
  /** Which `ai` major reads the stream (default `'ai7'`). */
  protocol?: UiProtocol;
  /**
   * Tool use ids whose approval was refused: their results become `tool-output-denied`
   * instead of an error output (shared with the approval flow, which fills it).
   */
  denied?: ReadonlySet<string>;
}

/**
 * Turns a session turn's events into UI message stream chunks, one event at a time: one UI
 * step per session step, text and reasoning parts per content block, dynamic tool parts, usage
 * and cost as message metadata, a fallback as ai 7's `reset-step` (ai 6: a
 * `data-yourtool-fallback` part), a cancelled turn as `abort`.
 */
export class TurnChunker {
  readonly #protocol: UiProtocol;
  readonly #denied: ReadonlySet<string>;
  #step: number | null = null;
  #stepOpen = false;
  #open: { kind: 'text' | 'reasoning'; id: string } | null = null;
  #parts = 0;
  #metadata: ChatMessageMetadata = { input_tokens: 0, output_tokens: 0, turn_cost_usd: '0' };
  #ended = false;
  readonly #toolNames = new Map<string, string>();

  constructor(options: TurnChunkerOptions = {}) {
    this.#protocol = options.protocol ?? 'ai7';
    this.#denied = options.denied ?? new Set();
  }

  /** Whether the turn's end (`finish`, `abort` or `error`) was written. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The chunks for one event (often none). */
  push(event: SessionEvent): UiChunk[] {
    switch (event.type) {
      case 'session.routed':
        return this.#routed(event.step);
      case 'text.delta':
        return this.#delta('text', event.content_block_index, event.text);
      case 'thinking.delta':
        return event.text ? this.#delta('reasoning', event.content_block_index, event.text) : [];
      case 'tool.use_start':
        this.#toolNames.set(event.tool_use_id, event.tool_name);
        return [
          ...this.#close(),
          {
            type: 'tool-input-start',
            toolCallId: event.tool_use_id,
            toolName: event.tool_name,
            dynamic: true,
          },
        ];
      case 'tool.use_input_delta':
        return [
          {
            type: 'tool-input-delta',
            toolCallId: event.tool_use_id,
            inputTextDelta: event.partial_json,
          },
        ];
      case 'tool.use_end':
        return [this.#inputAvailable(event.tool_use_id, event.final_input)];
      case 'session.confirmation_requested':
        return this.approvalRequested(event.tool_use_id);
      case 'session.tool_result':
        return this.#toolResult(event.message);
      case 'session.fallback':
        return this.#fallback(event);
      case 'session.assistant_message':
        return [...this.#close(), ...this.#usage(event.message)];
      case 'session.turn_complete':
        return this.#complete(event.result);
      default:
        return [];
    }
  }

  /** The chunk asking the client to approve a tool use (the approval id is the tool use id). */
  approvalRequested(toolUseId: string): UiChunk[] {
    return [
      ...this.#close(),
      { type: 'tool-approval-request', approvalId: toolUseId, toolCallId: toolUseId },
    ];
  }

  /**
   * Ends this HTTP response while the turn waits for an approval: the step is finished and the
   * message too, with the reason `tool-calls`, as the AI SDK ends a step waiting for approval.
   */
  pause(): UiChunk[] {
    const chunks = [...this.#close(), ...this.#finishStep()];
    this.#step = null;
    return [
      ...chunks,
      { type: 'finish', finishReason: 'tool-calls', messageMetadata: this.#metadata },
    ];
  }

  /** The chunks for a turn that failed: the error, without the server's details. */
  failed(error: unknown): UiChunk[] {
    if (this.#ended) return [];
    this.#ended = true;
    return [
      ...this.#close(),
      ...this.#finishStep(),
      { type: 'error', errorText: publicErrorText(error) },
    ];
  }

  /** The chunks for a turn cancelled before it ended (the client stopped it). */
  aborted(reason: string): UiChunk[] {
    if (this.#ended) return [];
    this.#ended = true;
    return [...this.#close(), ...this.#finishStep(), { type: 'abort', reason }];
  }

  #routed(step: number): UiChunk[] {
    if (this.#step === step) return this.#close();
    this.#step = step;
    const chunks = [...this.#close(), ...this.#finishStep()];
    this.#stepOpen = true;
    return [...chunks, { type: 'start-step' }];
  }

  #delta(kind: 'text' | 'reasoning', index: number, delta: string): UiChunk[] {
    const chunks: UiChunk[] = [];
    if (this.#open?.kind !== kind || !this.#open.id.endsWith(`_${index}`)) {
      chunks.push(...this.#close());
      // ids unique within the message: a counter, and the block index for reading
      this.#open = { kind, id: `${kind}_${this.#parts++}_${index}` };
      chunks.push({ type: kind === 'text' ? 'text-start' : 'reasoning-start', id: this.#open.id });
    }
    const { id } = this.#open as { id: string };
    chunks.push({ type: kind === 'text' ? 'text-delta' : 'reasoning-delta', id, delta });
    return chunks;
  }

  #inputAvailable(toolCallId: string, input: Record<string, unknown>): UiChunk {
    // the end event carries no name: the start event's is kept
    return {
      type: 'tool-input-available',
      toolCallId,
      toolName: this.#toolNames.get(toolCallId) ?? '',
      input,
      dynamic: true,
    };
  }

  #toolResult(message: Message): UiChunk[] {
    const chunks: UiChunk[] = [...this.#close()];
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      const id = block.tool_use_id;
      if (this.#denied.has(id)) chunks.push({ type: 'tool-output-denied', toolCallId: id });
      else if (block.is_error)
        chunks.push({
          type: 'tool-output-error',
          toolCallId: id,
          errorText: toolResultOutput(block),
          dynamic: true,
        });
      else
        chunks.push({
          type: 'tool-output-available',
          toolCallId: id,
          output: toolResultOutput(block),
          dynamic: true,
        });
    }
    return chunks;
  }

  #fallback(event: Extract<SessionEvent, { type: 'session.fallback' }>): UiChunk[] {
    const chunks = this.#close();
    if (this.#protocol === 'ai7') return [...chunks, { type: 'reset-step' }];
    const data = { from: event.from, to: event.to, error_class: event.error_class };
    return [...chunks, { type: 'data-yourtool-fallback', data }];
  }

  #usage(message: Message): UiChunk[] {
    const usage = message.metadata.usage;
    const m = this.#metadata;
    if (message.metadata.model) m.model = message.metadata.model;
    if (usage) {
      m.input_tokens = (m.input_tokens ?? 0) + usage.input_tokens;
      m.output_tokens = (m.output_tokens ?? 0) + usage.output_tokens;
      m.turn_cost_usd =
        usage.cost_usd === null || m.turn_cost_usd == null
          ? null
          : addDecimal(m.turn_cost_usd, usage.cost_usd);
    }
    return [{ type: 'message-metadata', messageMetadata: { ...m } }];
  }

  #complete(result: TurnResult): UiChunk[] {
    if (this.#ended) return [];
    this.#metadata.turn_cost_usd = result.cost_usd;
    this.#metadata.session_cost_usd = result.session_cost_usd;
    const chunks = [...this.#close(), ...this.#finishStep()];
    if (result.end === 'cancelled') return [...chunks, ...this.aborted('cancelled')];
    if (result.error) return [...chunks, ...this.failed(result.error)];
    this.#ended = true;
    return [
      ...chunks,
      {
        type: 'finish',
        finishReason: finishReason(result.end),
        messageMetadata: { ...this.#metadata },
      },
    ];
  }

  #finishStep(): UiChunk[] {
    if (!this.#stepOpen) return [];
    this.#stepOpen = false;
    return [{ type: 'finish-step' }];
  }

  #close(): UiChunk[] {
    const open = this.#open;
    if (!open) return [];
    this.#open = null;
    return [{ type: open.kind === 'text' ? 'text-end' : 'reasoning-end', id: open.id }];
  }
}

/** The AI SDK's finish reason for how a turn ended. */
function finishReason(end: StopReason | 'max_steps'): UiFinishReason {
  switch (end) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
      return 'length';
    case 'refusal':
      return 'content-filter';
    case 'tool_use':
      return 'tool-calls';
    case 'error':
      return 'error';
    default:
      return 'other';
  }
}
