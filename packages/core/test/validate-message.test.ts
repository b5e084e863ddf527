import { describe, expect, it } from 'vitest';
import { quickParseMessage } from '../src/fast-parse.js';
import {
  type ContentBlock,
  imageBlockViolations,
  MESSAGE_RULES,
  type Message,
  type MessageRule,
  STRICT_TOOL_NAME_RULES,
  validateHistory,
  validateMessage,
} from './exports.js';
import { completeAssistantMeta, msg, PNG_1PX } from './helpers.js';

const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const readFile = {
  name: 'read_file',
  description: 'Read a file',
  side_effects: 'read' as const,
  requires_workspace: true,
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

function rulesOf(value: unknown, options = {}): string[] {
  return validateMessage(value, options).violations.map((v) => v.rule);
}

/** For each rule: a message that keeps it and one that breaks it. */
const cases: Record<MessageRule, { pass: () => unknown; fail: () => unknown; options?: object }> = {
  schema: {
    pass: () => msg('user', [text('hi')]),
    fail: () => ({ ...msg('user', [text('hi')]), role: 'robot' }),
  },
  'schema-version': {
    pass: () => msg('user', [text('hi')]),
    fail: () => ({ ...msg('user', [text('hi')]), schema_version: 9 }),
  },
  'message-id-ulid': {
    pass: () => msg('user', [text('hi')]),
    fail: () => ({ ...msg('user', [text('hi')]), id: 'msg-1' }),
  },
  'content-non-empty': {
    pass: () => msg('system', []),
    fail: () => msg('user', []),
  },
  'role-block-allowed': {
    pass: () =>
      msg('user', [
        text('a'),
        { type: 'image', source: { kind: 'base64', data: PNG_1PX }, media_type: 'image/png' },
      ]),
    fail: () => msg('user', [{ type: 'thinking', text: 'hmm' }]),
  },
  'tool-name-format': {
    pass: () =>
      msg(
        'assistant',
        [{ type: 'tool_use', id: 'tu_1', name: 'read_file', input: {} }],
        completeAssistantMeta(),
      ),
    fail: () =>
      msg(
        'assistant',
        [{ type: 'tool_use', id: 'tu_1', name: 'read\nfile', input: {} }],
        completeAssistantMeta(),
      ),
  },
  'tool-use-id-unique': {
    pass: () =>
      msg(
        'assistant',
        [
          { type: 'tool_use', id: 'tu_1', name: 'a', input: {} },
          { type: 'tool_use', id: 'tu_2', name: 'a', input: {} },
        ],
        completeAssistantMeta(),
      ),
    fail: () =>
      msg(
        'assistant',
        [
          { type: 'tool_use', id: 'tu_1', name: 'a', input: {} },
          { type: 'tool_use', id: 'tu_1', name: 'a', input: {} },
        ],
        completeAssistantMeta(),
      ),
  },
  'tool-input-schema': {
    options: { tools: [readFile] },
    pass: () =>
      msg(
        'assistant',
        [{ type: 'tool_use', id: 'tu_1', name: 'read_file', input: { path: 'a' } }],
        completeAssistantMeta(),
      ),
    fail: () =>
      msg(
        'assistant',
        [{ type: 'tool_use', id: 'tu_1', name: 'read_file', input: { path: 3 } }],
        completeAssistantMeta(),
      ),
  },
  'tool-parent-id': {
    pass: () =>
      msg('tool', [{ type: 'tool_result', tool_use_id: 'tu_1', content: [], is_error: false }], {
        parent_tool_use_id: 'tu_1',
      }),
    fail: () =>
      msg('tool', [{ type: 'tool_result', tool_use_id: 'tu_1', content: [], is_error: false }]),
  },
  'tool-result-matches-parent': {
    pass: () =>
      msg('tool', [{ type: 'tool_result', tool_use_id: 'tu_1', content: [], is_error: false }], {
        parent_tool_use_id: 'tu_1',
      }),
    fail: () =>
      msg('tool', [{ type: 'tool_result', tool_use_id: 'tu_2', content: [], is_error: false }], {
        parent_tool_use_id: 'tu_1',
      }),
  },
  'assistant-model-provider': {
    pass: () => msg('assistant', [text('a')], completeAssistantMeta()),
    fail: () => msg('assistant', [text('a')], { ...completeAssistantMeta(), provider: 'openai' }),
  },
  'assistant-routing': {
    pass: () => msg('assistant', [text('a')], completeAssistantMeta()),
    fail: () => msg('assistant', [text('a')], { ...completeAssistantMeta(), routing: null }),
  },
  'assistant-usage': {
    pass: () => msg('assistant', [text('a')], completeAssistantMeta()),
    fail: () => msg('assistant', [text('a')], { ...completeAssistantMeta(), usage: null }),
  },
  'usage-pricing-version': {
    pass: () => msg('assistant', [text('a')], completeAssistantMeta()),
    fail: () => {
      const meta = completeAssistantMeta();
      return msg('assistant', [text('a')], {
        ...meta,
        usage: { ...meta.usage!, pricing_version: null },
      });
    },
  },
  'image-source': {
    pass: () =>
      msg('user', [
        { type: 'image', source: { kind: 'file_ref', data: 'img/a.png' }, media_type: 'image/png' },
      ]),
    fail: () =>
      msg('user', [
        {
          type: 'image',
          source: { kind: 'file_ref', data: '../secret.png' },
          media_type: 'image/png',
        },
      ]),
  },
  'image-media-type': {
    pass: () =>
      msg('user', [
        {
          type: 'image',
          source: { kind: 'url', data: 'https://x.test/a.png' },
          media_type: 'image/png',
        },
      ]),
    fail: () =>
      msg('user', [
        {
          type: 'image',
          source: { kind: 'url', data: 'https://x.test/a.pdf' },
          media_type: 'application/pdf',
        },
      ]),
  },
};

describe('validateMessage: every invariant of canonical-format §5', () => {
  it('has a passing and a failing case for every rule', () => {
    expect(Object.keys(cases).sort()).toEqual(Object.keys(MESSAGE_RULES).sort());
  });
  for (const [rule, { pass, fail, options }] of Object.entries(cases)) {
    it(`${rule}: accepts the good message and reports the bad one`, () => {
      expect(validateMessage(pass(), options)).toEqual({ ok: true, violations: [] });
      const result = validateMessage(fail(), options);
      expect(result.ok).toBe(false);
      expect(result.violations.map((v) => v.rule)).toContain(rule);
    });
  }

  // the quick check (decision 0104) stands in for the schema on well-formed messages: a
  // timestamp without sub-second digits sends the same message through the schema instead
  it('gives the same violations whether the quick check or the schema reads the message', () => {
    const throughSchema = (value: unknown) =>
      typeof value === 'object' && value !== null && 'created_at' in value
        ? { ...value, created_at: '2026-01-02T03:04:05Z' }
        : value;
    const sameTime = (value: unknown) =>
      typeof value === 'object' && value !== null && 'created_at' in value
        ? { ...value, created_at: '2026-01-02T03:04:05.000000Z' }
        : value;
    let compared = 0;
    let quickRead = 0;
    for (const { pass, fail, options } of Object.values(cases)) {
      for (const make of [pass, fail]) {
        const given = sameTime(make());
        if (typeof given === 'object' && given !== null && quickParseMessage({ ...given })) {
          quickRead++;
        }
        const quick = validateMessage(given, options);
        const schema = validateMessage(throughSchema(make()), options);
        expect(quick).toEqual(schema);
        compared++;
      }
    }
    expect(compared).toBe(Object.keys(MESSAGE_RULES).length * 2);
    // most cases are well-formed enough for the quick check: the comparison covers it
    expect(quickRead).toBeGreaterThan(compared / 2);
  });

  it('names the path of each violation', () => {
    const message = msg(
      'assistant',
      [text('a'), { type: 'tool_use', id: 'tu_1', name: 'read_file', input: { path: 3 } }],
      {
        ...completeAssistantMeta(),
        usage: null,
      },
    );
    const { violations } = validateMessage(message, { tools: [readFile] });
    expect(violations).toEqual([
      {
        rule: 'tool-input-schema',
        path: 'content[1].input.path',
        message: expect.stringContaining('read_file'),
      },
      { rule: 'assistant-usage', path: 'metadata.usage', message: expect.any(String) },
    ]);
  });

  it('skips complete-only rules for partial, cancelled and errored messages', () => {
    for (const status of ['partial', 'cancelled', 'error'] as const) {
      expect(rulesOf(msg('assistant', [], { status }))).toEqual([]);
    }
    expect(rulesOf(msg('assistant', [], { status: 'complete' }))).toEqual([
      'content-non-empty',
      'assistant-model-provider',
      'assistant-routing',
      'assistant-usage',
    ]);
  });

  it('keeps tool names no provider takes (fs.read, MCP-style, over 64), holds a reply to the strict rule (0140, 0159)', () => {
    const calling = (name: string) =>
      msg(
        'assistant',
        [{ type: 'tool_use', id: 'tu_1', name, input: {} }],
        completeAssistantMeta(),
      );
    const names = ['fs.read', 'github.search_issues', `server.${'tool'.repeat(20)}`, 'run shell'];
    for (const name of names) {
      expect(rulesOf(calling(name))).toEqual([]);
      const strict = validateMessage(calling(name), { toolNameRules: STRICT_TOOL_NAME_RULES });
      expect(strict.violations).toMatchObject([
        { rule: 'tool-name-format', path: 'content[0].name' },
      ]);
      expect(strict.violations[0]?.message).toContain('1-64 letters, digits');
    }
    expect(rulesOf(calling('read_file'))).toEqual([]);
    expect(rulesOf(calling('x'.repeat(257)))).toEqual(['tool-name-format']);
    expect(rulesOf(calling('read\u0000file'))).toEqual(['tool-name-format']);
  });

  it('rejects invalid base64 and non-http urls', () => {
    expect(
      rulesOf(
        msg('user', [
          {
            type: 'image',
            source: { kind: 'base64', data: 'not base64!' },
            media_type: 'image/png',
          },
        ]),
      ),
    ).toEqual(['image-source']);
    expect(
      rulesOf(
        msg('user', [
          {
            type: 'image',
            source: { kind: 'url', data: 'file:///etc/passwd' },
            media_type: 'image/png',
          },
        ]),
      ),
    ).toEqual(['image-source']);
  });
});

describe('validateHistory', () => {
  const use = (id: string): Message =>
    msg(
      'assistant',
      [{ type: 'tool_use', id, name: 'read_file', input: {} }],
      completeAssistantMeta(),
    );
  const result = (id: string): Message =>
    msg('tool', [{ type: 'tool_result', tool_use_id: id, content: [], is_error: false }], {
      parent_tool_use_id: id,
    });

  it('accepts a well-formed history, including an unanswered tool use at the end', () => {
    const history = [msg('user', [text('go')]), use('tu_a'), result('tu_a'), use('tu_b')];
    expect(validateHistory(history)).toEqual({ ok: true, violations: [] });
  });

  it('reports a result without a tool use, a double answer, reused ids, order and sessions', () => {
    const orphan = result('tu_x');
    const a = use('tu_a');
    const history = [orphan, a, result('tu_a'), result('tu_a'), use('tu_a')];
    const rules = validateHistory(history).violations.map((v) => v.rule);
    expect(rules).toEqual([
      'tool-result-has-use',
      'tool-use-answered-once',
      'tool-use-id-unique-history',
    ]);
    const reordered = validateHistory([history[2]!, history[1]!]).violations.map((v) => v.rule);
    expect(reordered).toContain('history-order');
    const other = { ...msg('user', [text('x')]), session_id: 'sess_other' };
    expect(validateHistory([a, other]).violations.map((v) => v.rule)).toEqual(['history-session']);
  });
});

describe('imageBlockViolations', () => {
  const image = (data: string, kind: 'base64' | 'url' = 'base64') =>
    ({ type: 'image', source: { kind, data }, media_type: 'image/png' }) as const;

  it('names the first character at fault in base64 data, and passes standard padded base64', () => {
    expect(imageBlockViolations(image('iVBORw0KGgo='))).toEqual([]);
    const cases: Array<[string, string]> = [
      ['iVBORw0KGgo-not_base64', 'base64 image data is not valid base64: "-" at offset 11'],
      ['iVBO\nRw0KGgo=', 'base64 image data is not valid base64: whitespace at offset 4'],
      ['iVB=Rw0K', 'base64 image data is not valid base64: "=" at offset 3'],
      ['iVBORw0KGg', 'base64 image data is not valid base64: its length 10 is not a multiple of 4'],
      ['data:image/png;base64,iVBO', 'without a "data:...;base64," prefix'],
    ];
    for (const [data, message] of cases) {
      const [found, ...rest] = imageBlockViolations(image(data), 'content[0]');
      expect(rest).toEqual([]);
      expect(found).toMatchObject({ rule: 'image-source', path: 'content[0].source.data' });
      expect(found?.message).toContain(message);
    }
  });

  it('refuses a media type that is not an image and a URL that is not http(s)', () => {
    expect(
      imageBlockViolations({ ...image('iVBORw0KGgo='), media_type: 'application/pdf' }),
    ).toMatchObject([{ rule: 'image-media-type', path: 'image.media_type' }]);
    expect(imageBlockViolations(image('file:///etc/passwd', 'url'))).toMatchObject([
      { rule: 'image-source', message: '"file:///etc/passwd" is not an http(s) URL' },
    ]);
  });
});
