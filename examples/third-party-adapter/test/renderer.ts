import type { ExpectedBlock, ExpectedReply, FixtureRenderer } from '@yourtool/conformance';

const FINISH: Record<ExpectedReply['stop_reason'], string> = {
  end_turn: 'stop',
  // the API says `stop` for a stop sequence too
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
};

const usageOf = (reply: ExpectedReply) => ({
  prompt_tokens: reply.usage.input_tokens + reply.usage.cached_input_tokens,
  completion_tokens: reply.usage.output_tokens,
  total_tokens:
    reply.usage.input_tokens + reply.usage.cached_input_tokens + reply.usage.output_tokens,
  ...(reply.usage.cached_input_tokens > 0
    ? { prompt_tokens_details: { cached_tokens: reply.usage.cached_input_tokens } }
    : {}),
});

type Call = Extract<ExpectedBlock, { type: 'tool_use' }>;
const callId = (scenario: string, i: number) =>
  `call_${scenario.replace(/[^a-z]/g, '').slice(0, 12)}${i}`;

/**
 * Puts the suite's expected replies into the Acme wire format (recorded from its API docs):
 * a chat completion, an SSE stream of deltas ending in `data: [DONE]`, and `{ message }`
 * error bodies.
 */
export const acmeRenderer: FixtureRenderer = {
  streamFormat: 'sse',
  headers: { 'x-request-id': 'acme-req-0001' },
  reply: (reply) => {
    const text = reply.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    const calls = reply.content.filter((b): b is Call => b.type === 'tool_use');
    return {
      id: 'cmpl-acme-0001',
      object: 'chat.completion',
      model: 'small',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: text === '' ? null : text,
            ...(calls.length > 0
              ? {
                  tool_calls: calls.map((c, i) => ({
                    id: callId(reply.scenario, i),
                    type: 'function',
                    function: { name: c.name, arguments: JSON.stringify(c.input) },
                  })),
                }
              : {}),
          },
          finish_reason: FINISH[reply.stop_reason],
        },
      ],
      usage: usageOf(reply),
    };
  },
  stream: (reply) => {
    const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id: 'cmpl-acme-0001', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
    const out: string[] = [chunk({ role: 'assistant', content: '' })];
    let calls = 0;
    for (const block of reply.content) {
      if (block.type === 'text') {
        const words = block.text.split(/(?<= )/);
        const half = Math.max(1, Math.floor(words.length / 2));
        out.push(chunk({ content: words.slice(0, half).join('') }));
        if (reply.cut?.after === 'first-text-delta') return out;
        out.push(chunk({ content: words.slice(half).join('') }));
      } else if (block.type === 'tool_use') {
        const index = calls++;
        const args = JSON.stringify(block.input);
        const cut = Math.max(1, Math.floor(args.length / 2));
        out.push(
          chunk({
            tool_calls: [
              {
                index,
                id: callId(reply.scenario, index),
                type: 'function',
                function: { name: block.name, arguments: args === '{}' ? '' : args.slice(0, cut) },
              },
            ],
          }),
        );
        if (args === '{}') continue;
        if (reply.cut?.after === 'first-tool-input-fragment') return out;
        out.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(cut) } }] }));
      }
    }
    out.push(
      `data: ${JSON.stringify({
        id: 'cmpl-acme-0001',
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta: {}, finish_reason: FINISH[reply.stop_reason] }],
        usage: usageOf(reply),
      })}\n\n`,
    );
    out.push('data: [DONE]\n\n');
    return out;
  },
  error: (failure) => {
    const status = {
      rate_limit: 429,
      auth: 401,
      server_error: 500,
      context_overflow: 400,
      invalid_request: 400,
      overloaded: 503,
    }[failure.failure];
    const message = {
      rate_limit: 'Requests rate limit exceeded',
      auth: 'Unauthorized',
      server_error: 'Internal server error',
      context_overflow:
        'Prompt contains 140000 tokens, too large for model with 131072 maximum context length',
      invalid_request: 'Invalid model: unknown',
      overloaded: 'Service unavailable: the model is overloaded',
    }[failure.failure];
    const headers: Record<string, string> = {};
    if (failure.retryAfterSeconds !== undefined) {
      headers['retry-after-ms'] = String(Math.round(failure.retryAfterSeconds * 1000));
    }
    return {
      status,
      headers,
      body: { object: 'error', message, type: failure.failure, code: String(status) },
    };
  },
};
