import { describe, expect, it } from 'vitest';
import { cliLogger, DetectionFailures, logLine } from '../src/logger.js';

describe('the CLI logger', () => {
  it('writes an entry as one line: the message, then the fields it does not say', () => {
    expect(
      logLine(
        'warning',
        {
          event: 'block_dropped',
          adapter: 'ollama',
          block_type: 'image',
          message_id: '01K0000000000000000000000',
          trace: [{ policy: 'RULE' }],
          tags: ['a', 'b'],
        },
        'dropped image block for ollama:\nthe model takes no images',
      ),
    ).toBe(
      'warning: dropped image block for ollama: the model takes no images (message_id: 01K0000000000000000000000, tags: a, b)',
    );
    expect(logLine('error', { event: 'turn_cleanup_failed', error: new Error('disk full') })).toBe(
      'error: turn_cleanup_failed (error: disk full)',
    );
    expect(logLine('warning', { detail: 'x'.repeat(300) }, 'long')).toBe(
      `warning: long (detail: ${'x'.repeat(119)}…)`,
    );
  });

  it('keeps failed detections to itself, redacts the rest', () => {
    const lines: string[] = [];
    const detection = new DetectionFailures();
    const logger = cliLogger(
      (line) => lines.push(line),
      (text) => text.replaceAll('sk-secret', '[REDACTED]'),
      detection,
    );
    logger.warn(
      {
        event: 'capability_detection_failed',
        models: [{ model: 'ollama:llama3.2', error: 'fetch failed' }],
      },
      'capabilities of some models could not be detected',
    );
    logger.warn({ event: 'sdk_log', key: 'sk-secret' }, 'the SDK said something');
    logger.info?.({ event: 'chatty' }, 'not shown');
    expect(lines).toEqual(['warning: the SDK said something (key: [REDACTED])\n']);
    expect(detection.get('ollama:llama3.2')).toBe('fetch failed');
    expect(detection.get('anthropic:claude-sonnet-4-6')).toBeUndefined();
  });
});
