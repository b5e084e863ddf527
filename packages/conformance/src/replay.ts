import {
  type CallOptions,
  type CanonicalResponse,
  createMessage,
  type Message,
  newRequestId,
  type ProviderAdapter,
  type ToolDefinition,
  type ToolIdMap,
} from '@yourtool/core';

/** What a replayed call needs besides its history: the session's id map, and provider options. */
export interface ReplayCallOptions {
  /** The session's tool id map, shared by every call of the conversation. */
  toolIdMap: ToolIdMap;
  /** Per-provider options of the call (`{ anthropic: { thinking: 'adaptive' } }`). */
  providerOptions?: CallOptions['providerOptions'];
}

/** What {@link replayKit} gives a cross-provider replay test. */
export interface ReplayKit {
  /** A user message of the session. */
  user(text: string): Message;
  /** The assistant message a reply becomes, as a session stores it (model, provider, provider_raw). */
  reply(response: CanonicalResponse): Message;
  /** The tool message answering the (first) tool use of a reply; throws when it holds none. */
  resultFor(response: CanonicalResponse, text: string, isError?: boolean): Message;
  /**
   * One `complete` call of a history on `model`, with the kit's tools: `options` is the
   * session's id map, or the map with provider options (`{ toolIdMap, providerOptions }`).
   */
  call(
    adapter: ProviderAdapter,
    model: string,
    messages: Message[],
    options: ToolIdMap | ReplayCallOptions,
  ): Promise<CanonicalResponse>;
}

/**
 * Helpers for replay tests: a conversation started on one provider continues on another through
 * the real adapters, each reply stored the way the session manager stores it, so what the next
 * adapter sees is what a resumed session would replay.
 *
 * ```ts
 * const { user, reply, resultFor, call } = replayKit('sess_replay', { tools: [READ_FILE] });
 * const first = await call(claude, 'anthropic:claude-sonnet-4-6', [user('Read a.md')], map);
 * const history = [user('Read a.md'), reply(first), resultFor(first, '# A')];
 * await call(gpt, 'openai:gpt-5', history, map);
 * await call(claude, 'anthropic:claude-sonnet-4-6', history, {
 *   toolIdMap: map,
 *   providerOptions: { anthropic: { thinking: 'adaptive' } },
 * });
 * ```
 */
export function replayKit(
  sessionId: string,
  options: { tools?: ToolDefinition[]; maxOutputTokens?: number } = {},
): ReplayKit {
  const session_id = sessionId;
  return {
    user: (text) => createMessage({ session_id, role: 'user', content: [{ type: 'text', text }] }),
    reply: (response) =>
      createMessage({
        session_id,
        role: 'assistant',
        content: response.content,
        metadata: {
          model: response.model,
          provider: response.provider,
          ...(response.provider_raw ? { provider_raw: response.provider_raw } : {}),
        },
      }),
    resultFor: (response, text, isError = false) => {
      const use = response.content.find((b) => b.type === 'tool_use');
      if (use?.type !== 'tool_use') throw new Error('the reply holds no tool use');
      return createMessage({
        session_id,
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            tool_use_id: use.id,
            content: [{ type: 'text', text }],
            is_error: isError,
          },
        ],
        metadata: { parent_tool_use_id: use.id },
      });
    },
    call: (adapter, model, messages, idsAndOptions) => {
      const { toolIdMap, providerOptions }: ReplayCallOptions =
        'toolIdMap' in idsAndOptions ? idsAndOptions : { toolIdMap: idsAndOptions };
      return adapter.complete(
        {
          request_id: newRequestId(),
          model,
          messages,
          tools: options.tools ?? [],
          max_output_tokens: options.maxOutputTokens ?? 4096,
        },
        { toolIdMap, ...(providerOptions ? { providerOptions } : {}) },
      );
    },
  };
}
