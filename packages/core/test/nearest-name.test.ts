import { describe, expect, it } from 'vitest';
// from the package root: the function is public, every package's "did you mean" uses it
import { nearestName, unknownNameMessage } from '../src/index.js';

describe('nearestName', () => {
  it('finds the known name one slip away, whatever its case', () => {
    expect(nearestName('maxStep', ['maxOutputTokens', 'maxSteps'])).toBe('maxSteps');
    expect(nearestName('antropic', ['openai', 'anthropic', 'google'])).toBe('anthropic');
    expect(nearestName('vertexAI', ['vertexai', 'location'])).toBe('vertexai');
    expect(nearestName('MAXSTEPS', ['maxSteps'])).toBe('maxSteps');
  });

  it('allows a third of the length in edits on a long name, two on a short one', () => {
    // 12 letters: 4 edits allowed
    expect(nearestName('prompt_cache', ['prompt_caching'])).toBe('prompt_caching');
    expect(nearestName('abcdefghijkl', ['abcdefghwxyz'])).toBe('abcdefghwxyz');
    expect(nearestName('abcdefghijkl', ['abcdefgvwxyz'])).toBeUndefined();
    // 5 letters: 2 edits allowed
    expect(nearestName('tiers', ['tier'])).toBe('tier');
    expect(nearestName('model', ['mod'])).toBe('mod');
    expect(nearestName('model', ['mo'])).toBeUndefined();
  });

  it('says nothing when no known name is close, and never turns a short name into another', () => {
    expect(nearestName('colour', ['maxSteps', 'store', 'router'])).toBeUndefined();
    expect(nearestName('x', ['id', 'y'])).toBeUndefined();
    expect(nearestName('', ['a'])).toBeUndefined();
    expect(nearestName('maxStep', [])).toBeUndefined();
  });

  it('prefers the closest name, then the first one listed', () => {
    expect(nearestName('tool', ['tools', 'tool_id'])).toBe('tools');
    expect(nearestName('ab', ['ac', 'ad'])).toBe('ac');
    expect(nearestName('ab', ['ad', 'ac'])).toBe('ad');
  });
});

describe('unknownNameMessage', () => {
  it('names the unknown name and the nearest known one', () => {
    expect(unknownNameMessage('option', ['maxStep'], ['maxSteps', 'store'])).toBe(
      'unknown option "maxStep"; did you mean "maxSteps"?',
    );
  });

  it('names only the unknown name when nothing known is close', () => {
    expect(unknownNameMessage('option', ['colour'], ['maxSteps'])).toBe('unknown option "colour"');
  });

  it('puts the path before both names of a nested option', () => {
    expect(
      unknownNameMessage('option', ['agentNam'], ['captureContent', 'agentName'], 'telemetry.'),
    ).toBe('unknown option "telemetry.agentNam"; did you mean "telemetry.agentName"?');
  });

  it('lists several unknown names, each with its own hint', () => {
    expect(unknownNameMessage('field', ['wire_nam', 'colour'], ['wire_name', 'tier'])).toBe(
      'unknown fields "wire_nam" (did you mean "wire_name"?), "colour"',
    );
  });
});
