import {
  type CanonicalResponse,
  type Message,
  newRequestId,
  type ToolDefinition,
  type Usage,
} from '@yourtool/core';
import { computeCost, modelToPrice } from '@yourtool/pricing';
import type { Runtime } from '@yourtool/runtime';
import { compactedConversation } from '@yourtool/session';
import type { SqlSessionStore } from '@yourtool/store';
import { type ModelOptions, openCliRuntime } from '../config.js';
import type { CommandContext } from '../context.js';
import { describeBlock, money, oneLine, textOf } from '../format.js';
import { CliError } from '../io.js';
import { readSchemaFile, showObject, storedObject } from '../objects.js';
import { withProgress } from '../progress.js';
import { objectRequest } from '../replay-object.js';
import { requireSession, withStore } from './sessions.js';

/** Options of `yourtool replay`. */
export interface ReplayOptions extends ModelOptions {
  store?: string;
  /** The model to replay on (canonical id or alias). */
  model: string;
  /** The user message whose reply is replayed (default: the last one with a reply). */
  at?: string;
  /** `max_output_tokens` of the replay call (default: the original reply's model's, up to 4096). */
  maxOutputTokens?: number;
  /** A JSON Schema file: the replay asks for an object of it (native or the forced tool). */
  schema?: string;
  json?: boolean;
}

/** One side of a replay: who answered, what, and at what cost. */
export interface ReplySide {
  model: string;
  message_id: string | null;
  text: string;
  /** Tool calls the reply asked for (never run by a replay). */
  tool_calls: Array<{ name: string; input: Record<string, unknown> }>;
  stop_reason: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: string | null;
  /** Why the cost is null, when it is. */
  unpriced_reason: string | null;
  /**
   * When the reply was asked for an object (stored with `metadata.structured_output`, or a
   * replay with `--schema`): the object, whether it validated, and why not.
   */
  object?: { value: unknown; valid: boolean; issues: string[] };
}

/** What `yourtool replay` reports. */
export interface ReplayReport {
  session_id: string;
  /** The user message the history ends with. */
  user_message_id: string;
  original: ReplySide;
  replay: ReplySide;
}

/** The user message to replay and the reply it got, from the stored messages. */
function pickTurn(messages: readonly Message[], at: string | undefined) {
  const replyAfter = (index: number) =>
    messages.slice(index + 1).find((m) => m.role === 'assistant' && m.metadata.status !== 'error');
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Message;
    if (message.role !== 'user') continue;
    if (at !== undefined && message.id !== at) continue;
    const reply = replyAfter(i);
    if (reply || at !== undefined) return { index: i, user: message, reply };
  }
  throw new CliError(
    at === undefined
      ? 'the session has no user message with a reply to replay'
      : `no user message "${at}" in the session`,
  );
}

/**
 * The tools the history uses, declared so that any provider takes its tool calls and results;
 * the replay never runs them (a reply asking for one is shown as asked).
 */
function toolsOf(history: readonly Message[]): ToolDefinition[] {
  const names = new Set<string>();
  for (const message of history) {
    for (const block of message.content) if (block.type === 'tool_use') names.add(block.name);
  }
  return [...names]
    .filter((name) => /^[a-z][a-z0-9_]{0,63}$/.test(name))
    .map((name) => ({
      name,
      description: `The ${name} tool of the original session (a replay does not run it).`,
      input_schema: { type: 'object' },
      side_effects: 'none',
      requires_workspace: false,
    }));
}

/** What a {@link ReplySide} is made from: a reply's content and usage, and who gave it. */
interface SideSource
  extends Pick<ReplySide, 'model' | 'message_id' | 'stop_reason' | 'unpriced_reason'> {
  content: Message['content'];
  usage: Pick<Usage, 'input_tokens' | 'output_tokens' | 'cost_usd'> | null;
}

function side({ content, usage, ...source }: SideSource): ReplySide {
  return {
    model: source.model,
    message_id: source.message_id,
    text: content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''),
    tool_calls: content.flatMap((b) =>
      b.type === 'tool_use' ? [{ name: b.name, input: b.input }] : [],
    ),
    input_tokens: usage?.input_tokens ?? null,
    output_tokens: usage?.output_tokens ?? null,
    cost_usd: usage?.cost_usd ?? null,
    stop_reason: source.stop_reason,
    unpriced_reason: source.unpriced_reason,
  };
}

/** The original side: the stored reply, or a placeholder when none is stored. */
function originalSide(reply: Message | undefined): ReplySide {
  const object = reply ? storedObject(reply) : null;
  const shown = originalText(reply);
  return object ? { ...shown, object } : shown;
}

function originalText(reply: Message | undefined): ReplySide {
  if (!reply) {
    return side({
      model: '(no reply stored)',
      message_id: null,
      content: [],
      usage: null,
      stop_reason: null,
      unpriced_reason: null,
    });
  }
  const usage = reply.metadata.usage ?? null;
  return side({
    model: reply.metadata.model ?? '(unknown model)',
    message_id: reply.id,
    content: reply.content,
    usage,
    stop_reason: reply.metadata.stop_reason ?? null,
    unpriced_reason: usage && usage.cost_usd === null ? 'unpriced when stored' : null,
  });
}

function replySide(runtime: Runtime, model: string, response: CanonicalResponse): ReplySide {
  const cost = computeCost(
    response.usage,
    modelToPrice(runtime.pricing, model, response.served_model),
    runtime.pricing,
  );
  return side({
    model,
    message_id: null,
    content: response.content,
    usage: { ...response.usage, cost_usd: cost.cost_usd },
    stop_reason: response.stop_reason,
    unpriced_reason: cost.priced ? null : cost.detail,
  });
}

/** What a replay runs with: the runtime it calls the model through, the store it reads. */
interface ReplayScope {
  runtime: Runtime;
  store: SqlSessionStore;
  context: CommandContext;
}

async function replayTurn(
  { runtime, store, context }: ReplayScope,
  sessionId: string,
  options: ReplayOptions,
): Promise<ReplayReport> {
  const model = runtime.registry.get(options.model).id;
  const adapter = runtime.registry.adapterFor(model);
  const { messages } = await store.loadMessages(sessionId);
  const turn = pickTurn(messages, options.at);
  const history = compactedConversation(
    messages
      .slice(0, turn.index + 1)
      .filter((m) => !(m.role === 'assistant' && m.metadata.status === 'error')),
  );
  const maxOutput = Math.min(
    options.maxOutputTokens ?? 4096,
    adapter.capabilitiesFor(model).max_output_tokens,
  );
  const toolIdMap = await store.loadToolIdMap(sessionId);
  const controller = new AbortController();
  const stop = context.io.onInterrupt(() => controller.abort());
  try {
    const request = {
      request_id: newRequestId(),
      model,
      messages: history,
      tools: toolsOf(history),
      max_output_tokens: maxOutput,
    };
    const asked = options.schema
      ? objectRequest(request, readSchemaFile(options.schema, context.io.cwd), adapter)
      : null;
    const response = await withProgress(context.io.stderr, `waiting for ${model}`, () =>
      adapter.complete(asked?.request ?? request, { signal: controller.signal, toolIdMap }),
    );
    const replay = replySide(runtime, model, response);
    return {
      session_id: sessionId,
      user_message_id: turn.user.id,
      original: originalSide(turn.reply),
      replay: asked ? { ...replay, object: asked.read(response) } : replay,
    };
  } finally {
    stop();
  }
}

/** An object as `replay` shows it: indented, and why it is not valid when it is not. */
function objectLines(object: NonNullable<ReplySide['object']>): string[] {
  const lines = [object.valid ? '  object:' : '  object (not valid):'];
  if (object.value !== undefined) lines.push(showObject(object.value, '    '));
  for (const issue of object.issues) lines.push(`    ! ${issue}`);
  return lines;
}

function render(label: string, reply: ReplySide): string {
  const tokens =
    reply.input_tokens === null
      ? ''
      : ` · ${reply.input_tokens} in / ${reply.output_tokens} out tokens`;
  const lines = [`${label.padEnd(9)}${reply.model} · ${money(reply.cost_usd)}${tokens}`];
  if (reply.object) {
    lines.push(...objectLines(reply.object));
  } else if (reply.text) {
    lines.push(...reply.text.split('\n').map((line) => `  ${line}`));
  }
  for (const call of reply.object ? [] : reply.tool_calls) {
    lines.push(
      `  ${describeBlock({ type: 'tool_use', id: '', name: call.name, input: call.input }, false)}`,
    );
  }
  if (reply.unpriced_reason) lines.push(`  (unpriced: ${reply.unpriced_reason})`);
  return lines.join('\n');
}

/**
 * `yourtool replay <session> --model X`: sends the session's history, up to its last user
 * message with a reply (or `--at`), to another model, and shows that reply and its cost next
 * to the original's. Nothing is stored; tools the reply asks for are not run.
 */
export async function replaySession(
  context: CommandContext,
  sessionId: string,
  options: ReplayOptions,
): Promise<void> {
  await withStore(context, options.store, async (store) => {
    await requireSession(store, sessionId);
    const runtime = await openCliRuntime({ ...options, store }, context);
    try {
      const report = await replayTurn({ runtime, store, context }, sessionId, options);
      const { stdout } = context.io;
      if (options.json) {
        stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        return;
      }
      const user = (await store.getMessage(report.user_message_id)) as Message;
      stdout.write(`session ${sessionId}, reply to ${user.id}: "${oneLine(textOf(user), 60)}"\n\n`);
      stdout.write(
        `${render('original', report.original)}\n\n${render('replay', report.replay)}\n`,
      );
    } finally {
      // the runtime closes the store too; withStore's close is then a no-op
      await runtime.close();
    }
  });
}
