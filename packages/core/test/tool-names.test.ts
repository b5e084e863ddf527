import { describe, expect, it } from 'vitest';
import {
  canonicalToolName,
  fitsToolNameRules,
  GEMINI_TOOL_NAME_RULES,
  requestToolNames,
  STRICT_TOOL_NAME_RULES,
  wireToolName,
} from './exports.js';

describe('tool names on the wire', () => {
  it('sends a name that fits as it is', () => {
    expect(wireToolName('read_file')).toBe('read_file');
    expect(wireToolName('fs.read', GEMINI_TOOL_NAME_RULES)).toBe('fs.read');
  });

  it('derives a provider-safe, stable, distinct name for one that does not', () => {
    const names = [
      'fs.read',
      'fs:read',
      'server.tool/with space',
      `t${'x'.repeat(80)}`,
      '9lives',
      'ünï',
    ];
    const derived = names.map((n) => wireToolName(n));
    for (const name of derived) expect(fitsToolNameRules(name, STRICT_TOOL_NAME_RULES)).toBe(true);
    expect(new Set(derived).size).toBe(names.length);
    expect(names.map((n) => wireToolName(n))).toEqual(derived);
    expect(derived[0]).toMatch(/^fs_read_[0-9a-f]{8}$/);
    expect(
      fitsToolNameRules(wireToolName('9lives', GEMINI_TOOL_NAME_RULES), GEMINI_TOOL_NAME_RULES),
    ).toBe(true);
  });

  it('reads a derived name back as the canonical name the request carried', () => {
    const request = {
      tools: [{ name: 'read_file' }],
      messages: [{ content: [{ type: 'tool_use', name: 'fs.read' }, { type: 'text' }] }],
    };
    const names = requestToolNames(request);
    expect([...names]).toEqual(['read_file', 'fs.read']);
    expect(canonicalToolName(wireToolName('fs.read'), names)).toBe('fs.read');
    expect(canonicalToolName('read_file', names)).toBe('read_file');
    expect(canonicalToolName('functions.read_file', names)).toBe('functions.read_file');
  });
});
