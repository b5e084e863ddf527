import { describe, expect, it } from 'vitest';
import { compileMessagePattern, parseRoutingConfig, RouterConfigError } from '../src/index.js';

const rule = (when: string) => `
global_default: sonnet
rules:
  - { name: r, when: ${when}, use: sonnet }
`;

describe('message_matches: flags said, not guessed', () => {
  it('is case-insensitive by default, and reads inline (?i), (?s), (?-i) and message_flags', () => {
    const test = (pattern: string, text: string, flags?: string) => {
      const compiled = compileMessagePattern(pattern, flags);
      if (!compiled.ok) throw new Error(compiled.reason);
      return compiled.regex.test(text);
    };
    expect(test('confidential', 'CONFIDENTIAL memo')).toBe(true);
    expect(test('(?i)confidential', 'Confidential memo')).toBe(true);
    expect(test('(?-i)confidential', 'CONFIDENTIAL memo')).toBe(false);
    expect(test('(?-i)confidential', 'confidential memo')).toBe(true);
    expect(test('a.b', 'a\nb')).toBe(false);
    expect(test('(?s)a.b', 'a\nb')).toBe(true);
    expect(test('(?is)A.B', 'a\nb')).toBe(true);
    expect(test('confidential', 'CONFIDENTIAL', '-i')).toBe(false);
    expect(test('^b', 'a\nb', 'm')).toBe(true);
  });

  it('a routing.yaml with an inline (?i) loads; bad flags and bad patterns are typed errors naming the field', () => {
    expect(() => parseRoutingConfig(rule('{ message_matches: "(?i)secret" }'))).not.toThrow();
    expect(() =>
      parseRoutingConfig(rule('{ message_matches: "secret", message_flags: "-i" }')),
    ).not.toThrow();
    for (const [when, message] of [
      ['{ message_matches: "(?x)secret" }', 'inline flags (?x): unknown flag "x"'],
      ['{ message_matches: "secret", message_flags: "g" }', 'message_flags: unknown flag "g"'],
      ['{ message_matches: "(unclosed" }', 'not a valid regular expression'],
    ] as const) {
      let error: unknown;
      try {
        parseRoutingConfig(rule(when));
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(RouterConfigError);
      const issue = (error as RouterConfigError).issues[0];
      expect(issue?.path).toMatch(/rules\[0\]\.when\.message_matches/);
      expect(issue?.message).toContain(message);
    }
  });
});
