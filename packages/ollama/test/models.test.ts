import { describe, expect, it } from 'vitest';
import {
  DEFAULT_NUM_CTX,
  normalizeOllamaModelName,
  ollamaCapabilities,
  parseModelfileParameters,
  parseOllamaShow,
  resolveNumCtx,
} from '../src/models.js';
import { showFixture } from './show.js';

describe('parseOllamaShow', () => {
  it('reads capabilities, the trained context length and the Modelfile num_ctx', () => {
    expect(parseOllamaShow(showFixture('qwen3-vl_8b'))).toEqual({
      capabilities: ['completion', 'vision', 'tools', 'thinking'],
      contextLength: 262144,
      modelfileNumCtx: null,
      system: null,
      stop: ['<|im_start|>', '<|im_end|>'],
    });
    expect(parseOllamaShow(showFixture('mistral-32k_latest'))).toMatchObject({
      contextLength: 32768,
      modelfileNumCtx: 65536,
    });
    expect(parseOllamaShow(showFixture('gemma3_1b')).system).toBe('You are a helpful assistant.');
  });

  it('infers tools and vision on servers without a capabilities list', () => {
    expect(
      parseOllamaShow({
        template: '{{ if .Tools }}[AVAILABLE_TOOLS]{{ .Tools }}{{ end }}',
        model_info: { 'general.architecture': 'llama', 'llama.context_length': 8192 },
      }),
    ).toMatchObject({ capabilities: ['completion', 'tools'], contextLength: 8192 });
    expect(parseOllamaShow(showFixture('llava_legacy')).capabilities).toEqual([
      'completion',
      'vision',
    ]);
  });

  it('accepts model_info as a Map (the ollama client types it so)', () => {
    const info = new Map<string, unknown>([
      ['general.architecture', 'phi3'],
      ['phi3.context_length', 131072],
    ]);
    expect(parseOllamaShow({ model_info: info, capabilities: ['completion'] }).contextLength).toBe(
      131072,
    );
  });

  it('parses Modelfile parameters, repeated ones included', () => {
    const params = parseModelfileParameters(
      'num_ctx                        8192\nstop                           "<|im_start|>"\nstop                           "<|im_end|>"',
    );
    expect(params.get('num_ctx')).toEqual(['8192']);
    expect(params.get('stop')).toEqual(['<|im_start|>', '<|im_end|>']);
  });
});

describe('resolveNumCtx and ollamaCapabilities', () => {
  const qwen = parseOllamaShow(showFixture('qwen3_8b'));
  const mistral = parseOllamaShow(showFixture('mistral-32k_latest'));

  it('uses override, then configuration, then the Modelfile, then the default, within the trained context', () => {
    expect(resolveNumCtx(undefined, {})).toBe(DEFAULT_NUM_CTX);
    expect(resolveNumCtx(qwen, {})).toBe(DEFAULT_NUM_CTX);
    expect(resolveNumCtx(qwen, { configured: 16384 })).toBe(16384);
    expect(resolveNumCtx(qwen, { configured: 16384, override: 8192 })).toBe(8192);
    expect(resolveNumCtx(qwen, { configured: 100000 })).toBe(40960);
    expect(resolveNumCtx(mistral, {})).toBe(32768);
    expect(resolveNumCtx(mistral, { configured: 4096 })).toBe(4096);
  });

  it('is conservative before detection', () => {
    expect(ollamaCapabilities(undefined)).toEqual({
      supports_images: false,
      supports_thinking: false,
      supports_tools: false,
      supports_system_prompt: true,
      supports_structured_output: true,
      supports_streaming: true,
      supports_streaming_tool_calls: false,
      supports_parallel_tool_calls: false,
      supports_prompt_caching: false,
      supports_forced_tool_choice: false,
      max_context_tokens: DEFAULT_NUM_CTX,
      max_output_tokens: DEFAULT_NUM_CTX,
      accepted_image_media_types: [],
    });
  });

  it('follows what /api/show reports', () => {
    expect(ollamaCapabilities(parseOllamaShow(showFixture('qwen3-vl_8b')))).toMatchObject({
      supports_images: true,
      supports_thinking: true,
      supports_tools: true,
      supports_parallel_tool_calls: true,
      accepted_image_media_types: ['image/png', 'image/jpeg'],
    });
    expect(ollamaCapabilities(parseOllamaShow(showFixture('gemma3_1b')))).toMatchObject({
      supports_images: false,
      supports_tools: false,
      supports_thinking: false,
    });
  });

  it('lets overrides win field by field, the context override becoming num_ctx', () => {
    const caps = ollamaCapabilities(qwen, {
      configured: 8192,
      overrides: { supports_tools: false, max_context_tokens: 100000 },
    });
    expect(caps.supports_tools).toBe(false);
    expect(caps.supports_thinking).toBe(true);
    expect(caps.max_context_tokens).toBe(40960);
  });

  it('normalizes model names the way Ollama does', () => {
    expect(normalizeOllamaModelName('llama3.2')).toBe('llama3.2:latest');
    expect(normalizeOllamaModelName('qwen3:8b')).toBe('qwen3:8b');
    expect(normalizeOllamaModelName('hf.co/org/model')).toBe('hf.co/org/model:latest');
    expect(normalizeOllamaModelName('localhost:5000/m')).toBe('localhost:5000/m:latest');
  });
});
