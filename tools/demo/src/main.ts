/**
 * The yourtool demo: one session that starts on Claude, swaps to GPT-5 mid-conversation,
 * replays its whole history there, refuses a swap its images would not survive, and is resumed
 * from the SQLite file on a local Ollama model, with every turn routed, priced and stored.
 *
 * Offline (the default), each provider is a loopback server playing recorded responses in its
 * own wire format, reached through the official SDKs. `--live` runs the same script against the
 * real providers whose API keys are set (and a local Ollama, if one answers).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LoopbackServer, loadResponseFile, startLoopbackServer } from '@yourtool/conformance';
import type { ContentBlock, Logger, RouteDecidedEvent } from '@yourtool/core';
import { sumCosts } from '@yourtool/pricing';
import {
  ChoiceUnavailableError,
  type ModelRegistry,
  NoRouteError,
  SwapRefusedError,
} from '@yourtool/router';
import { createRuntime, type Runtime } from '@yourtool/runtime';
import type { SessionEvent, SessionManager, TurnResult } from '@yourtool/session';
import type { SqlSessionStore } from '@yourtool/store';
import { parse as parseYaml } from 'yaml';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const live = process.argv.includes('--live');
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number) => (text: string) =>
  color ? `\u001b[${code}m${text}\u001b[0m` : text;
const dim = paint(2);
const bold = paint(1);
const green = paint(32);
const red = paint(31);
const cyan = paint(36);
const yellow = paint(33);

const say = (line = '') => process.stdout.write(`${line}\n`);
const heading = (title: string) =>
  say(`\n${bold(`── ${title} `)}${dim('─'.repeat(Math.max(4, 72 - title.length)))}`);

/** WARN records of the libraries, shown dimmed so the reader sees what was repaired or dropped. */
const logger: Logger = {
  warn: (obj, msg) => say(dim(`  ! ${String(obj.event ?? 'warn')}: ${msg ?? ''}`)),
};

// ---- providers --------------------------------------------------------------------------------

type Provider = 'anthropic' | 'openai' | 'ollama' | 'google';
const servers = new Map<Provider, LoopbackServer>();

/** Queues the recorded responses of `recordings/<folder>`, in file order. */
function enqueueRecordings(server: LoopbackServer | undefined, folder: string): void {
  const dir = join(root, 'recordings', folder);
  const files = readdirSync(dir)
    .filter((f) => !f.endsWith('.meta.json'))
    .sort();
  server?.enqueue(...files.map((file) => loadResponseFile(join(dir, file))));
}

async function scriptedProvider(provider: Provider): Promise<LoopbackServer> {
  const server = await startLoopbackServer();
  enqueueRecordings(server, provider);
  servers.set(provider, server);
  return server;
}

async function ollamaAnswers(host: string): Promise<boolean> {
  try {
    const res = await fetch(`${host}/api/version`, { signal: AbortSignal.timeout(1000) });
    return res.ok;
  } catch {
    return false;
  }
}

// ---- the whole stack, in one call ------------------------------------------------------------

interface Stack {
  runtime: Runtime;
  registry: ModelRegistry;
  manager: SessionManager;
  store: SqlSessionStore;
}

async function buildStack(dbUrl: string, decisions: RouteDecidedEvent[]): Promise<Stack> {
  const models = parseYaml(readFileSync(join(root, 'config/models.yaml'), 'utf8')) as {
    adapters: Record<string, { base_url?: string }>;
  };
  let env: Record<string, string | undefined> = process.env;
  if (!live) {
    for (const provider of ['anthropic', 'openai', 'ollama', 'google'] as const) {
      const adapter = models.adapters[provider];
      const server = servers.get(provider);
      if (adapter && server) adapter.base_url = server.url;
    }
    env = {
      ANTHROPIC_API_KEY: 'sk-ant-demo-offline-000000',
      OPENAI_API_KEY: 'sk-demo-offline-0000000000',
      GEMINI_API_KEY: 'gemini-demo-offline-000000',
    };
  }
  const workspace = join(root, 'workspace');
  const runtime = await createRuntime({
    models,
    routing: { file: join(root, 'config/routing.yaml') },
    store: dbUrl,
    env,
    logger,
    // offline, the recorded overloads are retried after 0.2-0.4 s instead of 1-3 s
    ...(live ? {} : { retry: { baseDelayMs: 200, maxDelayMs: 1000 } }),
    maxOutputTokens: 1024,
    systemPrompt: [
      'You are a concise assistant helping a developer understand a project.',
      ({ session }) => `The workspace is ${session.workspace_path}; read files with read_file.`,
    ],
    tools: [
      {
        definition: {
          name: 'read_file',
          description: 'Read a UTF-8 text file from the workspace, by workspace-relative path.',
          input_schema: {
            type: 'object',
            properties: { path: { type: 'string', description: 'Workspace-relative path' } },
            required: ['path'],
          },
          side_effects: 'read',
        },
        run: async ({ path }) => {
          const target = resolve(workspace, String(path));
          if (!target.startsWith(`${workspace}/`))
            throw new Error(`${String(path)} is outside the workspace`);
          return readFile(target, 'utf8');
        },
      },
    ],
  });
  runtime.bus.on('route.decided', (event) => decisions.push(event));
  return {
    runtime,
    registry: runtime.registry,
    manager: runtime.sessions,
    store: runtime.store as SqlSessionStore,
  };
}

/** Detects the Ollama models one at a time (the recordings answer /api/show in this order). */
async function detectOllama(stack: Stack): Promise<void> {
  for (const model of ['ollama:qwen3-vl:8b', 'ollama:llama3.2:3b']) {
    const report = await stack.runtime.router.prepare({ models: [model] });
    for (const failed of report.failed) throw failed.error;
    const caps = stack.registry.capabilitiesFor(model);
    say(
      dim(
        `ollama /api/show ${model}: tools ${caps.supports_tools}, images ${caps.supports_images}, context ${caps.max_context_tokens}`,
      ),
    );
  }
}

// ---- printing a turn ----------------------------------------------------------------------------

interface TurnRecord {
  label: string;
  result: TurnResult;
}

async function turn(
  stack: Stack,
  sessionId: string,
  label: string,
  input: string | ContentBlock[],
  turns: TurnRecord[],
): Promise<TurnResult> {
  const shown =
    typeof input === 'string'
      ? input
      : input.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ');
  say(`${cyan('you>')} ${shown}`);
  let open = false;
  let result: TurnResult | undefined;
  const close = () => {
    if (open) say();
    open = false;
  };
  for await (const event of stack.manager.send(sessionId, input) as AsyncIterable<SessionEvent>) {
    switch (event.type) {
      case 'session.routed':
        close();
        say(dim(`  route: ${event.model} (${event.decision.mode}: ${event.decision.reason})`));
        break;
      case 'session.fallback':
        close();
        say(yellow(`  ↪ ${event.from} failed (${event.error_class}); falling back to ${event.to}`));
        break;
      case 'text.delta':
        if (!open) process.stdout.write(`${green('ai>')} `);
        open = true;
        process.stdout.write(event.text);
        break;
      case 'tool.use_end':
        close();
        break;
      case 'session.tool_result': {
        const call = event.message.content[0];
        const size =
          call?.type === 'tool_result'
            ? call.content.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0)
            : 0;
        say(yellow(`  ⚙ ${event.tool_name} → ${event.is_error ? 'error' : `${size} characters`}`));
        break;
      }
      case 'session.turn_complete':
        close();
        result = event.result;
        break;
    }
  }
  if (!result) throw new Error('the turn ended without a result');
  say(
    dim(
      `  ${label}: ${result.steps} model call(s), ended ${result.end}, cost $${result.cost_usd ?? 'unpriced'}`,
    ),
  );
  turns.push({ label, result });
  return result;
}

function wireRoles(provider: Provider, index: number): string {
  const body = servers
    .get(provider)
    ?.requests.filter((r) => r.path.includes('chat') || r.path.includes('messages'))[index]?.body as
    | {
        messages?: Array<{ role: string; tool_calls?: unknown[]; images?: unknown[] }>;
        system?: unknown;
      }
    | undefined;
  if (!body?.messages) return '(nothing recorded)';
  const roles = body.messages.map((m) =>
    m.tool_calls ? `${m.role}+tool_calls` : m.images?.length ? `${m.role}+image` : m.role,
  );
  return (body.system ? ['system', ...roles] : roles).join(', ');
}

// ---- the script ---------------------------------------------------------------------------------

async function main(): Promise<number> {
  say(bold('yourtool demo'));
  const available = new Set<Provider>();
  if (live) {
    if (process.env.ANTHROPIC_API_KEY) available.add('anthropic');
    if (process.env.OPENAI_API_KEY) available.add('openai');
    if (process.env.GEMINI_API_KEY) available.add('google');
    if (await ollamaAnswers(process.env.OLLAMA_HOST ?? 'http://127.0.0.1:11434'))
      available.add('ollama');
    say(
      `live mode: ${[...available].join(', ') || 'no provider available'} (set ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, or run Ollama)`,
    );
    if (available.size === 0) return 1;
  } else {
    for (const provider of ['anthropic', 'openai', 'ollama', 'google'] as const) {
      await scriptedProvider(provider);
      available.add(provider);
    }
    say(
      dim(
        'offline: recorded provider responses served on 127.0.0.1, reached through the real SDKs',
      ),
    );
  }

  const dir = await mkdtemp(join(tmpdir(), 'yourtool-demo-'));
  const dbPath = join(dir, 'sessions.db');
  const dbUrl = `sqlite:${dbPath}`;
  say(dim(`store: ${dbUrl}`));
  const decisions: RouteDecidedEvent[] = [];
  const turns: TurnRecord[] = [];
  const checks: Array<[string, boolean]> = [];
  const check = (what: string, ok: boolean) => checks.push([what, ok]);

  let stack = await buildStack(dbUrl, decisions);
  if (available.has('ollama')) await detectOllama(stack);

  const session = await stack.manager.createSession({ workspace_path: join(root, 'workspace') });
  say(dim(`session: ${session.id}`));

  if (available.has('anthropic')) {
    heading('Turn 1 · Claude Sonnet 4.6 reads a file');
    const result = await turn(
      stack,
      session.id,
      'turn 1',
      'Read README.md and tell me what this project is.',
      turns,
    );
    check('turn 1 ran a tool loop on Claude', result.steps === 2 && result.end === 'end_turn');
  }

  if (available.has('anthropic') && available.has('openai') && !live) {
    heading('Turn 1b · Claude is overloaded: the turn falls back to GPT-5');
    const before = decisions.length;
    const result = await turn(
      stack,
      session.id,
      'turn 1b',
      'What language is it written in?',
      turns,
    );
    const fallback = decisions.slice(before).find((d) => d.decision.fallback_from?.length);
    check(
      'turn 1b fell back from an overloaded Claude (3 attempts of 529) to GPT-5 within the turn',
      result.end === 'end_turn' &&
        fallback?.decision.chosen_model === 'openai:gpt-5' &&
        fallback.decision.fallback_from?.[0]?.model === 'anthropic:claude-sonnet-4-6',
    );
  }

  if (available.has('openai')) {
    heading('/model gpt5 · swap mid-session');
    say(`${cyan('you>')} /model gpt5`);
    const swapped = await stack.manager.swapModel(session.id, 'gpt5');
    say(green(`  ✓ session model is now ${swapped.active_model}`));

    heading('Turn 2 · GPT-5 continues, replaying the whole history');
    const result = await turn(
      stack,
      session.id,
      'turn 2',
      'Does it have a license I can ship with?',
      turns,
    );
    if (!live) {
      const roles = wireRoles('openai', 0);
      say(dim(`  the OpenAI request carried: ${roles}`));
      check(
        'turn 2 replayed Claude’s tool call and result to OpenAI',
        roles.includes('assistant+tool_calls, tool'),
      );
    }
    check('turn 2 ran a tool loop on GPT-5', result.steps === 2 && result.end === 'end_turn');

    heading('Turn 3 · an image');
    const png = readFileSync(join(root, 'workspace/sync-diagram.png')).toString('base64');
    await turn(
      stack,
      session.id,
      'turn 3',
      [
        { type: 'text', text: 'What does this diagram show?' },
        { type: 'image', source: { kind: 'base64', data: png }, media_type: 'image/png' },
      ],
      turns,
    );
  }

  if (available.has('ollama') && turns.some((t) => t.label === 'turn 3')) {
    heading('A strict rule · confidential turns stay local, or do not run');
    const text = 'This is confidential: draft the client contract summary.';
    say(`${cyan('you>')} ${text}`);
    const storedBefore = (await stack.store.loadMessages(session.id)).messages.length;
    const openaiBefore = servers.get('openai')?.requests.length ?? 0;
    try {
      await stack.manager.sendAndWait(session.id, text, { fallthrough: true });
      say(red('  the turn ran'));
      check('the strict rule refused the confidential turn', false);
    } catch (error) {
      if (!(error instanceof NoRouteError || error instanceof ChoiceUnavailableError)) throw error;
      say(red(`  ✗ ${error.message}`));
      const storedAfter = (await stack.store.loadMessages(session.id)).messages.length;
      check(
        'the strict rule refused the confidential turn: nothing stored, nothing sent to a cloud model',
        storedAfter === storedBefore &&
          (servers.get('openai')?.requests.length ?? 0) === openaiBefore,
      );
    }
  }

  if (available.has('ollama')) {
    heading('/model llama · a swap the history cannot survive');
    say(`${cyan('you>')} /model llama`);
    try {
      await stack.manager.swapModel(session.id, 'llama');
      say(red('  the swap was accepted'));
      check('the swap to a text-only model was refused', false);
    } catch (error) {
      if (!(error instanceof SwapRefusedError)) throw error;
      say(red(`  ✗ ${error.message}`));
      check(
        'the swap to a text-only model was refused',
        turns.some((t) => t.label === 'turn 3'),
      );
    }
    const still = (await stack.store.getSession(session.id))?.active_model;
    say(dim(`  active model: ${still}`));

    heading('Resume · the stored session, reopened, on a local Ollama model');
    await stack.runtime.close();
    if (!live) enqueueRecordings(servers.get('ollama'), 'ollama-resume');
    stack = await buildStack(dbUrl, decisions);
    const reopened = await stack.store.loadMessages(session.id);
    say(
      dim(
        `  reopened ${dbUrl}: ${reopened.messages.length} messages, ${reopened.errors.length} unreadable`,
      ),
    );
    // a new process detects the models again: the recording answers /api/show, then the chat
    await detectOllama(stack);
    say(`${cyan('you>')} /model qwen-vl`);
    const swapped = await stack.manager.swapModel(session.id, 'qwen-vl');
    say(green(`  ✓ session model is now ${swapped.active_model}`));
    const result = await turn(
      stack,
      session.id,
      'resume',
      'Summarize our conversation so far.',
      turns,
    );
    if (!live) {
      const ollamaChats =
        servers.get('ollama')?.requests.filter((r) => r.path === '/api/chat') ?? [];
      const body = ollamaChats.at(-1)?.body as
        | { messages?: Array<{ role: string; images?: unknown[]; tool_calls?: unknown[] }> }
        | undefined;
      const roles = (body?.messages ?? []).map((m) =>
        m.tool_calls?.length
          ? `${m.role}+tool_calls`
          : m.images?.length
            ? `${m.role}+image`
            : m.role,
      );
      say(dim(`  the Ollama request carried ${roles.length} messages: ${roles.join(', ')}`));
      check(
        'the resumed session replayed every turn, image included, to Ollama',
        roles.includes('user+image') && roles.filter((r) => r === 'tool').length === 2,
      );
    }
    check('the resume on Ollama completed', result.end === 'end_turn');
  }

  if (available.has('google') && turns.some((t) => t.label === 'turn 2')) {
    heading('/model gemini · Gemini 3 continues the tool-using history');
    say(`${cyan('you>')} /model gemini`);
    const swapped = await stack.manager.swapModel(session.id, 'gemini');
    say(green(`  ✓ session model is now ${swapped.active_model}`));
    const result = await turn(
      stack,
      session.id,
      'gemini',
      'Can I ship the sync feature under that license?',
      turns,
    );
    check('the Gemini 3 step ran a tool loop', result.steps === 2 && result.end === 'end_turn');
    if (!live) {
      const [first, second] = (servers.get('google')?.requests ?? []).map(
        (r) =>
          (r.body as { contents?: Array<{ role: string; parts: Array<Record<string, unknown>> }> })
            .contents ?? [],
      );
      const signatures = (contents: typeof first) =>
        (contents ?? []).flatMap((c) =>
          c.parts.flatMap((p) => (p.functionCall ? [String(p.thoughtSignature ?? 'none')] : [])),
        );
      const before = signatures(first);
      const after = signatures(second);
      say(dim(`  function-call signatures sent to Gemini: ${after.join(', ')}`));
      check(
        'Gemini 3 got the Claude and GPT-5 calls with the validator-skip signature, and its own call back with its own signature',
        before.length >= 2 &&
          before.every((s) => s === 'skip_thought_signature_validator') &&
          after.at(-1) === 'CiQBDemoGeminiCallSig00000000000000000000',
      );
    }
  }

  // ---- summary ----------------------------------------------------------------------------------
  heading('Summary');
  say(bold('routing decisions'));
  for (const [i, d] of decisions.entries()) {
    say(
      `  ${String(i + 1).padStart(2)}. ${d.decision.chosen_model.padEnd(28)} ${d.decision.mode.padEnd(8)} ${dim(d.decision.reason)}`,
    );
  }
  say(bold('cost (computed locally, pricing 2026-11-22)'));
  for (const t of turns) say(`  ${t.label.padEnd(8)} $${t.result.cost_usd ?? 'unpriced'}`);
  const priced = turns.map((t) => t.result.cost_usd);
  const total = priced.includes(null) ? null : sumCosts(priced as string[]);
  say(`  ${'total'.padEnd(8)} $${total ?? 'unpriced'}`);

  const { messages } = await stack.store.loadMessages(session.id);
  const byRole = new Map<string, number>();
  const byModel = new Map<string, number>();
  for (const m of messages) {
    byRole.set(m.role, (byRole.get(m.role) ?? 0) + 1);
    if (m.role === 'assistant')
      byModel.set(m.metadata.model ?? '?', (byModel.get(m.metadata.model ?? '?') ?? 0) + 1);
  }
  const calls = await stack.store.listToolCalls(session.id);
  say(bold('what the store holds'));
  say(`  ${dbPath} (${statSync(dbPath).size} bytes, plus its WAL)`);
  say(`  ${messages.length} messages: ${[...byRole].map(([r, n]) => `${n} ${r}`).join(', ')}`);
  say(`  assistant messages by model: ${[...byModel].map(([m, n]) => `${m} ×${n}`).join(', ')}`);
  say(
    `  tool calls: ${calls.map((c) => `${c.name}(${c.provider ?? 'no provider id'}) ${c.status}`).join(', ')}`,
  );
  const unpricedAssistant = messages.filter(
    (m) => m.role === 'assistant' && !m.metadata.usage?.pricing_version,
  );
  check(
    'every assistant message carries its usage, cost and pricing version',
    unpricedAssistant.length === 0,
  );
  await stack.runtime.close();

  if (live) return 0;
  heading('Checks');
  check(
    'every recorded response was used',
    [...servers.values()].every((s) => s.pending() === 0),
  );
  check('total cost is priced', total !== null);
  for (const [what, ok] of checks) say(`  ${ok ? green('✓') : red('✗')} ${what}`);
  return checks.every(([, ok]) => ok) ? 0 : 1;
}

main()
  .then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      say(red(`demo failed: ${(error as Error).stack ?? String(error)}`));
      process.exitCode = 1;
    },
  )
  // a failed run must end too: the loopback servers would keep the process alive
  .finally(() => Promise.all([...servers.values()].map((server) => server.close())));
