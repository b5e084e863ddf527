// One cold-start repetition, in a fresh process run by plain `node` (no tsx, nothing preloaded):
// `node child.mjs <anthropic|openai> <ours|raw> <server url> <inputs JSON>`. It imports only what
// its side needs, streams one reply from the loopback server, and prints one JSON line: the
// process's CPU time (user + system, from process start) after the import and at the end, its
// peak RSS, and what the stream carried, for the parent to check against the wire.
const [provider, side, url, inputsJson] = process.argv.slice(2);
const { prompt, tools } = JSON.parse(inputsJson);
const cpuMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
const seen = { textDeltas: 0, toolFragments: 0, text: '' };

async function ours() {
  const config = { api_key: 'bench', max_retries: 0 };
  const { createMessage, newRequestId, newSessionId } = await import('@yourtool/core');
  const adapter =
    provider === 'anthropic'
      ? new (await import('@yourtool/anthropic')).AnthropicAdapter({ ...config, base_url: url })
      : new (await import('@yourtool/openai')).OpenAIAdapter({ ...config, base_url: `${url}/v1` });
  const importedMs = cpuMs();
  const session_id = newSessionId();
  const events = adapter.stream({
    request_id: newRequestId(),
    model: provider === 'anthropic' ? 'anthropic:claude-sonnet-4-6' : 'openai:gpt-5',
    messages: [
      createMessage({ session_id, role: 'user', content: [{ type: 'text', text: prompt }] }),
    ],
    tools,
    max_output_tokens: 64_000,
    stream: true,
  });
  for await (const event of events) {
    if (event.type === 'text.delta') {
      seen.textDeltas++;
      seen.text += event.text;
    } else if (event.type === 'tool.use_input_delta') seen.toolFragments++;
  }
  return importedMs;
}

async function rawAnthropic() {
  const { default: Anthropic } = await import('@anthropic-ai/sdk');
  const client = new Anthropic({ apiKey: 'bench', baseURL: url, maxRetries: 0, logLevel: 'off' });
  const importedMs = cpuMs();
  const stream = await client.messages.create({
    model: 'claude-sonnet-4-6',
    max_tokens: 64_000,
    messages: [{ role: 'user', content: prompt }],
    tools: tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.input_schema,
    })),
    stream: true,
  });
  for await (const event of stream) {
    if (event.type !== 'content_block_delta') continue;
    if (event.delta.type === 'text_delta' && event.delta.text !== '') {
      seen.textDeltas++;
      seen.text += event.delta.text;
    } else if (event.delta.type === 'input_json_delta' && event.delta.partial_json !== '') {
      seen.toolFragments++;
    }
  }
  return importedMs;
}

async function rawOpenAI() {
  const { default: OpenAI } = await import('openai');
  const client = new OpenAI({
    apiKey: 'bench',
    baseURL: `${url}/v1`,
    maxRetries: 0,
    logLevel: 'off',
  });
  const importedMs = cpuMs();
  const stream = await client.chat.completions.create({
    model: 'gpt-5',
    messages: [{ role: 'user', content: prompt }],
    tools: tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.input_schema },
    })),
    stream: true,
    stream_options: { include_usage: true },
  });
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    if (!delta) continue;
    if (delta.content) {
      seen.textDeltas++;
      seen.text += delta.content;
    }
    for (const call of delta.tool_calls ?? []) if (call.function?.arguments) seen.toolFragments++;
  }
  return importedMs;
}

const importedMs = await (side === 'ours'
  ? ours()
  : provider === 'anthropic'
    ? rawAnthropic()
    : rawOpenAI());
const totalMs = cpuMs();
const maxRssBytes = process.resourceUsage().maxRSS * 1024;
process.stdout.write(`${JSON.stringify({ importedMs, totalMs, maxRssBytes, ...seen })}\n`);
