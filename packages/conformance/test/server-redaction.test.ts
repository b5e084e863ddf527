import { afterEach, describe, expect, it } from 'vitest';
import { type LoopbackServer, startLoopbackServer } from '../src/index.js';

/**
 * Issue 12: the loopback server records custom credential headers (what an adapter sends from
 * `extra_headers`) redacted, never in clear, and leaves ordinary headers as they were.
 */

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ORDINARY = {
  'content-type': 'application/json',
  'x-request-id': '7f3c9a2e-1b4d-4c8e-9f00-123456789abc',
  'x-team': 'core-platform',
};

async function send(target: LoopbackServer, headers: Record<string, string>): Promise<void> {
  target.enqueue({ type: 'json', body: { ok: true } });
  const res = await fetch(`${target.url}/v1/chat`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ q: 1 }),
  });
  await res.text();
}

describe('loopback server: credential headers are recorded redacted', () => {
  it('redacts custom credential header names (x-custom-auth, x-goog-api-key) and keeps ordinary headers', async () => {
    server = await startLoopbackServer();
    await send(server, {
      ...ORDINARY,
      'x-custom-auth': 's3cr3t-value-123',
      'x-goog-api-key': 'goog-key-value-456',
    });
    const headers = server.requests[0]?.headers ?? {};
    expect(headers['x-custom-auth']).toBe('[REDACTED]');
    expect(headers['x-goog-api-key']).toBe('[REDACTED]');
    expect(headers).toMatchObject(ORDINARY);
    const recorded = JSON.stringify(server.requests);
    expect(recorded).not.toContain('s3cr3t-value-123');
    expect(recorded).not.toContain('goog-key-value-456');
  });

  it('redacts a header whose value contains a secret the server was given, whatever its name', async () => {
    server = await startLoopbackServer({ secrets: ['tenant-pass-9931'] });
    await send(server, {
      ...ORDINARY,
      'x-tenant': 'tenant-pass-9931',
      'x-forwarded-for': '10.0.0.1, proxy=tenant-pass-9931',
    });
    const headers = server.requests[0]?.headers ?? {};
    expect(headers['x-tenant']).toBe('[REDACTED]');
    expect(headers['x-forwarded-for']).toBe('[REDACTED]');
    expect(headers).toMatchObject(ORDINARY);
    expect(JSON.stringify(server.requests)).not.toContain('tenant-pass-9931');
  });

  it('addSecret redacts later requests and those already recorded', async () => {
    server = await startLoopbackServer();
    await send(server, { ...ORDINARY, 'x-workspace': 'ws-credential-77' });
    expect(server.requests[0]?.headers['x-workspace']).toBe('ws-credential-77');
    server.addSecret('ws-credential-77');
    expect(server.requests[0]?.headers['x-workspace']).toBe('[REDACTED]');
    await send(server, { ...ORDINARY, 'x-workspace': 'ws-credential-77' });
    expect(server.requests[1]?.headers['x-workspace']).toBe('[REDACTED]');
    expect(server.requests[1]?.headers).toMatchObject(ORDINARY);
    expect(JSON.stringify(server.requests)).not.toContain('ws-credential-77');
  });

  it('ignores secrets too short to be one (they would redact ordinary values)', async () => {
    server = await startLoopbackServer({ secrets: ['core'] });
    await send(server, ORDINARY);
    expect(server.requests[0]?.headers).toMatchObject(ORDINARY);
  });
});
