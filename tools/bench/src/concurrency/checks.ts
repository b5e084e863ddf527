/**
 * The concurrency scenarios' sanity checks: every stored history against the server's script,
 * and descriptors and heap back near where they started once everything is closed.
 */
import { readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeHeapSnapshot } from 'node:v8';
import type { Message, SessionStore } from '@yourtool/core';
import { check, collectGarbage } from '../lib/harness.js';
import { promptOf, replyText, TOOL_NAME, TOOL_TURN } from './script.js';
import { TURNS } from './sides.js';

const textOf = (message: Message) =>
  message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

/** The messages a session of our side stores in a run, as the script says they must be. */
function expectedRows(side: string, rep: number, session: number) {
  const rows: Array<{ role: Message['role']; text: string | null }> = [];
  for (let turn = 1; turn <= TURNS; turn++) {
    const key = { side, rep, session, turn };
    rows.push({ role: 'user', text: promptOf(key) });
    rows.push({ role: 'assistant', text: replyText({ ...key, step: 1 }) });
    if (turn === TOOL_TURN) {
      rows.push({ role: 'tool', text: null });
      rows.push({ role: 'assistant', text: replyText({ ...key, step: 2 }) });
    }
  }
  return rows;
}

/**
 * Loads every session of a run and compares each stored message with the script: roles in
 * order, user prompts and assistant texts exactly, assistant rows `complete`, the tool call
 * with the server's id. Returns the number of rows checked; throws on the first difference.
 */
export async function checkStoredHistories(
  store: SessionStore,
  sessionIds: readonly string[],
  side: string,
  rep: number,
): Promise<number> {
  let rows = 0;
  for (let s = 0; s < sessionIds.length; s++) {
    const id = sessionIds[s] as string;
    const { messages } = await store.loadMessages(id);
    const expected = expectedRows(side, rep, s);
    check(
      messages.length === expected.length,
      `session ${s} stored ${messages.length} messages, the script has ${expected.length}`,
    );
    messages.forEach((message, i) => {
      const want = expected[i] as (typeof expected)[number];
      const where = `session ${s} message ${i}`;
      check(message.role === want.role, `${where} is ${message.role}, expected ${want.role}`);
      if (want.text !== null)
        check(textOf(message) === want.text, `${where}: text differs from the server's`);
      if (message.role === 'assistant') {
        check(message.metadata.status === 'complete', `${where} is ${message.metadata.status}`);
      }
      if (message.role === 'tool') {
        // the store keeps its own tool use ids: the result must answer the call just before it
        const call = messages[i - 1]?.content.find((b) => b.type === 'tool_use');
        const block = message.content[0];
        check(
          call?.type === 'tool_use' &&
            call.name === TOOL_NAME &&
            (call.input as { session?: unknown }).session === s &&
            block?.type === 'tool_result' &&
            block.tool_use_id === call.id,
          `${where} does not answer the ${TOOL_NAME} call the server scripted`,
        );
      }
    });
    rows += messages.length;
  }
  return rows;
}

/** Open file descriptors of this process. */
export function openDescriptors(): number {
  return readdirSync('/proc/self/fd').length;
}

/**
 * Heap in use after full GCs, in bytes, once what the GCs let go of has been let go: sockets
 * closing finish on the next turns of the loop, and the entries `AbortSignal.any` keeps in
 * Node's cleanup registry go only when its finalization callbacks, queued by a GC, have run.
 */
export async function heapAfterGc(): Promise<number> {
  for (let round = 0; round < 3; round++) {
    collectGarbage();
    await sleep(50);
  }
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** Descriptors and heap, now. */
export interface ResourceMark {
  fds: number;
  heap: number;
}

/** Marks descriptors and heap (after a full GC). */
export async function markResources(): Promise<ResourceMark> {
  return { fds: openDescriptors(), heap: await heapAfterGc() };
}

/** How much the heap may stay above its start after close: warm code, module-level tables. */
export const HEAP_SLACK_BYTES = 24 * 2 ** 20;
/** Descriptors that may stay open after close (none expected; one for a lazily opened handle). */
export const FD_SLACK = 2;

/**
 * Waits (up to 5 s, for sockets the peer closes) until descriptors are back near `start`, then
 * checks them (throwing when they are not) and the heap: a heap not back is written to stderr
 * and returned as a failed check for the report, so the run's figures are not lost with it.
 */
export async function checkResourcesBack(start: ResourceMark): Promise<string> {
  let fds = openDescriptors();
  for (let i = 0; i < 50 && fds > start.fds + FD_SLACK; i++) {
    await sleep(100);
    fds = openDescriptors();
  }
  const heap = await heapAfterGc();
  // a heap snapshot after close, to see what stayed (YOURTOOL_BENCH_HEAP_SNAPSHOT=<dir>)
  const snapshotDir = process.env.YOURTOOL_BENCH_HEAP_SNAPSHOT;
  if (snapshotDir) writeHeapSnapshot(`${snapshotDir}/after-close-${process.pid}.heapsnapshot`);
  check(
    fds <= start.fds + FD_SLACK,
    `${fds} descriptors open after close, ${start.fds} at the start`,
  );
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  const figures = `${fds} descriptors (${start.fds} at the start), heap ${mb(heap)} MB after GC (${mb(start.heap)} MB at the start)`;
  if (heap <= start.heap + HEAP_SLACK_BYTES) return `after close: ${figures}`;
  // a finding to report, not a broken run: the figures of the run stand, the table says it
  const finding = `HEAP NOT BACK after close: ${figures}, more than ${mb(HEAP_SLACK_BYTES)} MB above the start`;
  process.stderr.write(`CHECK FAILED: ${finding}\n`);
  return `CHECK FAILED: ${finding}`;
}
