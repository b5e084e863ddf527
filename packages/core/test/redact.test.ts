import { describe, expect, it } from 'vitest';
import {
  InflightCalls,
  InvalidRequestError,
  normalizeRequest,
  REDACTED,
  redactHeaders,
  redactSecrets,
} from './exports.js';

describe('redactSecrets', () => {
  it('removes a known secret and anything shaped like a provider key', () => {
    const text =
      'Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwx. Also my-secret-value and sk-ant-api03-XYZxyz123456';
    const out = redactSecrets(text, ['my-secret-value']);
    expect(out).not.toContain('abcdefghijklmnop');
    expect(out).not.toContain('my-secret-value');
    expect(out).not.toContain('XYZxyz123456');
    expect(out.split(REDACTED)).toHaveLength(4);
  });

  it('leaves ordinary text alone', () => {
    expect(redactSecrets('the task was skipped', ['ab'])).toBe('the task was skipped');
  });

  it('redacts credential headers', () => {
    expect(
      redactHeaders({
        'x-api-key': 'k123456',
        Authorization: 'Bearer abc',
        'content-type': 'application/json',
      }),
    ).toEqual({
      'x-api-key': REDACTED,
      Authorization: REDACTED,
      'content-type': 'application/json',
    });
  });
});

describe('InflightCalls', () => {
  it('cancels a registered call once, then reports it gone', () => {
    const calls = new InflightCalls();
    const { signal, end } = calls.begin('req_1');
    expect(calls.cancel('req_1')).toBe(true);
    expect(signal.aborted).toBe(true);
    expect(calls.cancel('req_1')).toBe(false);
    end();
    expect(calls.size).toBe(0);
  });

  it('follows the caller signal too', () => {
    const calls = new InflightCalls();
    const controller = new AbortController();
    const { signal } = calls.begin('req_2', controller.signal);
    controller.abort();
    expect(signal.aborted).toBe(true);
  });
});

describe('normalizeRequest', () => {
  it('fills defaults', () => {
    const request = normalizeRequest({
      request_id: 'req_1',
      model: 'openai:gpt-5',
      messages: [],
      max_output_tokens: 10,
    });
    expect(request).toMatchObject({ tools: [], stop_sequences: [], stream: false });
  });

  it('refuses a malformed request with the offending paths', () => {
    expect(() =>
      normalizeRequest({ request_id: 'req_1', model: '', messages: [], max_output_tokens: 0 }),
    ).toThrowError(InvalidRequestError);
    expect(() =>
      normalizeRequest({ request_id: 'req_1', model: '', messages: [], max_output_tokens: 0 }),
    ).toThrow(/model: .*max_output_tokens/);
  });
});
