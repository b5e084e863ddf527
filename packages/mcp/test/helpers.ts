import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ToolCallContext, ToolHandler } from '@yourtool/core';
// @ts-expect-error: the fixture server is plain JavaScript, run by node as the stdio child too
import { createToolsServer } from './fixtures/tools-server.mjs';

/** A server config on the SDK's in-memory transport: a fresh server per (re)connection. */
export function inMemoryServer(extra: Record<string, unknown> = {}) {
  const log: string[] = [];
  return {
    log,
    config: {
      ...extra,
      transport: () => {
        const [client, server] = InMemoryTransport.createLinkedPair();
        void createToolsServer((line: string) => log.push(line)).connect(server);
        return client;
      },
    },
  };
}

/** A tool call context as the session gives it, with the progress updates it received. */
export function callContext(signal: AbortSignal = new AbortController().signal) {
  const updates: unknown[] = [];
  const context: ToolCallContext = {
    session_id: 'ses_test',
    tool_use_id: 'tu_test',
    workspace_path: '/tmp',
    signal,
    progress: (update) => updates.push(update),
  };
  return { context, updates };
}

/** The handler registered under `name`. */
export function handlerNamed(tools: readonly ToolHandler[], name: string): ToolHandler {
  const found = tools.find((t) => t.definition.name === name);
  if (!found)
    throw new Error(`no tool ${name} among ${tools.map((t) => t.definition.name).join(', ')}`);
  return found;
}
