import { TOOL_NAME_PATTERN } from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import { checkServerConfigs, isToolAllowed, McpConfigError, mcpToolName } from '../src/index.js';

describe('mcpToolName', () => {
  it('keeps plain pairs readable and derives the others with a fingerprint', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('github_create_issue');
    const dotted = mcpToolName('github', 'Repo.CreateIssue');
    expect(dotted).toMatch(/^github_repo_createissue_[0-9a-f]{8}$/);
    expect(mcpToolName('github', 'Repo.CreateIssue')).toBe(dotted);
  });

  it('keeps names apart across servers and case, within the registration rule', () => {
    const names = [
      mcpToolName('a_b', 'c'),
      mcpToolName('a', 'b_c'),
      mcpToolName('srv', 'Foo'),
      mcpToolName('srv', 'foo'),
      mcpToolName('my-server', 'get-weather'),
      mcpToolName('my_server', 'get_weather'),
      mcpToolName('srv', 'x'.repeat(128)),
      mcpToolName('srv', `${'x'.repeat(127)}y`),
    ];
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
  });
});

describe('server configuration', () => {
  it('names the server and the field, never the secret', () => {
    expect(() => checkServerConfigs({ '9lives': { command: 'x' } })).toThrow(McpConfigError);
    expect(() =>
      checkServerConfigs({ gh: { url: 'ftp://x', headers: { Authorization: 'Bearer s3cret' } } }),
    ).toThrow(/MCP server "gh": mcp_servers\.gh\.url/);
    try {
      checkServerConfigs({ gh: { command: 'x', env: { TOKEN: 7 as unknown as string } } });
      expect.unreachable();
    } catch (error) {
      expect(String(error)).toMatch(/mcp_servers\.gh\.env\.TOKEN/);
    }
    try {
      checkServerConfigs({
        gh: { url: 'https://x', headers: { Authorization: 'Bearer s3cret' }, bogus: 1 } as never,
      });
      expect.unreachable();
    } catch (error) {
      expect(String(error)).toMatch(/bogus/);
      expect(String(error)).not.toMatch(/s3cret/);
    }
    expect(() => checkServerConfigs({ gh: {} as never })).toThrow(/"command" \(stdio\) or "url"/);
  });

  it('lets allow and deny lists filter by name or pattern, deny winning', () => {
    expect(isToolAllowed('read_file', {})).toBe(true);
    expect(isToolAllowed('read_file', { allow: ['read_*'] })).toBe(true);
    expect(isToolAllowed('write_file', { allow: ['read_*'] })).toBe(false);
    expect(isToolAllowed('read_file', { allow: ['read_*'], deny: ['read_file'] })).toBe(false);
    expect(isToolAllowed('a.b', { deny: ['a*b'] })).toBe(false);
    expect(isToolAllowed('axb.c', { allow: ['a.b'] })).toBe(false);
  });
});
