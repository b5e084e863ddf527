import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSessionLines, type SqlSessionStore, sessionToLines } from '../src/index.js';
import { assistantWithTools, toolAnswer, userText } from './helpers/messages.js';
import { type Target, targets } from './helpers/targets.js';

/**
 * Tool names no provider takes as they are (decision 0140): an imported or stored history keeps
 * them, adapters derive the wire name. The store holds them to the canonical rule only
 * (decision 0159), on write and on import.
 */
const NAMES = ['fs.read', 'github.search_issues', `server.${'tool'.repeat(20)}`];

describe.each(targets())('tool names in a stored history on $name', ({ make }) => {
  const source: Target = make();
  const target: Target = make();
  let store: SqlSessionStore;
  let empty: SqlSessionStore;

  beforeAll(async () => {
    store = await source.open();
    empty = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await empty?.close();
    await source.dispose();
    await target.dispose();
  });

  it('stores and reads back complete tool uses named fs.read, server.tool and over 64 characters', async () => {
    const { id } = await store.createSession({ workspace_path: '/w' });
    const reply = assistantWithTools(
      id,
      NAMES.map((name) => ({ name })),
    );
    const uses = reply.content.flatMap((b) => (b.type === 'tool_use' ? [b] : []));
    await store.appendMessages([
      userText(id, 'look'),
      reply,
      ...uses.map((u) => toolAnswer(id, u.id, `ran ${u.name}`)),
    ]);
    const { messages } = await store.loadMessages(id);
    const stored = messages
      .flatMap((m) => m.content)
      .flatMap((b) => (b.type === 'tool_use' ? [b.name] : []));
    expect(stored).toEqual(NAMES);
  });

  it('imports a session export whose history holds such names, byte for byte', async () => {
    const { id } = await store.createSession({ workspace_path: '/w' });
    const reply = assistantWithTools(id, [{ name: 'read_file', input: { path: 'a.md' } }]);
    const use = reply.content.find((b) => b.type === 'tool_use');
    await store.appendMessages([
      userText(id, 'read a.md'),
      reply,
      toolAnswer(id, use?.type === 'tool_use' ? use.id : '', '# a'),
    ]);
    // the export of a history written elsewhere, whose tool is named fs.read
    const lines = sessionToLines(await store.exportSession(id)).replaceAll(
      '"read_file"',
      '"fs.read"',
    );
    const [parsed] = parseSessionLines(lines);
    await empty.importSession(parsed as NonNullable<typeof parsed>);
    expect(sessionToLines(await empty.exportSession(id))).toBe(lines);
    const { messages } = await empty.loadMessages(id);
    const names = messages.flatMap((m) =>
      m.content.flatMap((b) => (b.type === 'tool_use' ? [b.name] : [])),
    );
    expect(names).toEqual(['fs.read']);
  });

  it('still refuses a name with a control character, naming the rule', async () => {
    const { id } = await store.createSession({ workspace_path: '/w' });
    await expect(
      store.appendMessages([userText(id, 'x'), assistantWithTools(id, [{ name: 'fs\nread' }])]),
    ).rejects.toMatchObject({
      name: 'InvalidMessageError',
      message: expect.stringContaining('tool-name-format'),
    });
  });
});
