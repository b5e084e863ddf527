import { describe, expect, it } from 'vitest';
import {
  AdapterBase,
  type AdapterCapabilities,
  type AdapterConfigInput,
  type CallOptions,
  type CallRunnerOptions,
  type CanonicalRequestInput,
  type CanonicalResponse,
  InvalidRequestError,
  normalizeRequest,
  OtherAdapterError,
  runCompleteCall,
  type StreamEvent,
} from './exports.js';
import { msg } from './helpers.js';

const CAPS: AdapterCapabilities = {
  supports_images: false,
  supports_thinking: false,
  supports_tools: true,
  supports_system_prompt: true,
  supports_structured_output: false,
  supports_streaming: true,
  supports_streaming_tool_calls: true,
  supports_parallel_tool_calls: false,
  supports_prompt_caching: false,
  max_context_tokens: 8000,
  max_output_tokens: 1000,
  accepted_image_media_types: [],
};

/** The smallest adapter on the base: it answers with the wire name it would have sent. */
class EchoAdapter extends AdapterBase {
  readonly name = 'echo';
  constructor(config: AdapterConfigInput = {}, runtime: CallRunnerOptions = {}) {
    super('Echo', config, runtime);
  }
  protected defaultModel() {
    return 'echo:small';
  }
  protected baseCapabilities(wireName: string) {
    return wireName === 'large' ? { ...CAPS, max_context_tokens: 32_000 } : CAPS;
  }
  complete(request: CanonicalRequestInput, options: CallOptions = {}): Promise<CanonicalResponse> {
    return runCompleteCall(
      this.callSetup((e) => new OtherAdapterError(String(e))),
      request,
      options,
      async ({ request: req, signal }) => {
        const wire = this.checkRequest(req);
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 5);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new Error('aborted'));
          });
        });
        return {
          request_id: req.request_id,
          model: req.model,
          provider: this.name,
          content: [{ type: 'text', text: wire }],
          stop_reason: 'end_turn',
          usage: {
            input_tokens: 1,
            output_tokens: 1,
            cached_input_tokens: 0,
            cache_creation_input_tokens: 0,
          },
          latency_ms: 5,
        };
      },
    );
  }
  // biome-ignore lint/correctness/useYield: not exercised here
  async *stream(): AsyncGenerator<StreamEvent> {
    throw new Error('not used');
  }
}

const request = (model: string): CanonicalRequestInput => ({
  request_id: `req_${Math.random().toString(36).slice(2)}`,
  model,
  max_output_tokens: 10,
  messages: [msg('user', [{ type: 'text', text: 'hi' }])],
});

describe('AdapterBase', () => {
  it('validates the config, naming each bad field', () => {
    expect(() => new EchoAdapter({ max_retries: -1, base_url: 'not a url' })).toThrowError(
      InvalidRequestError,
    );
    expect(() => new EchoAdapter({ max_retries: -1 })).toThrow(
      /invalid Echo adapter config: max_retries/,
    );
  });

  it('maps wire names: configured names, the own prefix stripped, anything else kept', async () => {
    const echo = new EchoAdapter({}, { wireNames: { 'echo:alias': 'large' } });
    const text = async (model: string) => {
      const res = await echo.complete(request(model));
      return res.content[0]?.type === 'text' ? res.content[0].text : '';
    };
    expect(await text('echo:small')).toBe('small');
    expect(await text('echo:alias')).toBe('large');
    expect(await text('echo:org/model:free')).toBe('org/model:free');
    expect(echo.capabilitiesFor('echo:alias').max_context_tokens).toBe(32_000);
    expect(
      echo.capabilitiesFor('qwen3:8b').max_context_tokens,
      'a bare wire name is not parsed as an id',
    ).toBe(8000);
  });

  it('applies capability overrides by canonical id, then by wire name', () => {
    const echo = new EchoAdapter(
      {},
      {
        capabilityOverrides: {
          'echo:small': { supports_images: true },
          large: { supports_thinking: true },
        },
      },
    );
    expect(echo.capabilities.supports_images).toBe(true);
    expect(echo.capabilitiesFor('echo:large').supports_thinking).toBe(true);
    expect(echo.capabilitiesFor('echo:large').supports_images).toBe(false);
  });

  it('refuses models of other providers and calls after close', async () => {
    const echo = new EchoAdapter();
    await expect(echo.complete(request('other:model'))).rejects.toThrow(
      /not a model of the echo adapter/,
    );
    await echo.close();
    await expect(echo.complete(request('echo:small'))).rejects.toThrow(
      /the Echo adapter is closed/,
    );
  });

  it('cancels an in-flight call by request id, once', async () => {
    const echo = new EchoAdapter();
    const req = normalizeRequest(request('echo:small'));
    const pending = echo.complete(req);
    expect(await echo.cancel(req.request_id)).toBe(true);
    await expect(pending).rejects.toMatchObject({ error_class: 'cancelled' });
    expect(await echo.cancel(req.request_id)).toBe(false);
  });
});
