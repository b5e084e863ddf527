import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AdapterBase,
  type AdapterCapabilities,
  type AdapterConfigInput,
  AdapterOptionError,
  type CallOptions,
  type CanonicalRequestInput,
  type CanonicalResponse,
  InvalidRequestError,
  type StreamEvent,
} from './exports.js';

const CAPS: AdapterCapabilities = {
  supports_images: false,
  supports_thinking: false,
  supports_tools: false,
  supports_system_prompt: true,
  supports_structured_output: false,
  supports_streaming: false,
  supports_streaming_tool_calls: false,
  supports_parallel_tool_calls: false,
  supports_prompt_caching: false,
  max_context_tokens: 8000,
  max_output_tokens: 1000,
  accepted_image_media_types: [],
};

const OptionsSchema = z.strictObject({
  reasoning_effort: z.enum(['low', 'high']).optional(),
  prompt_caching: z.boolean().optional(),
  tool_id: z.strictObject({ pattern: z.string().optional(), max_length: z.number().optional() }),
});

const CallOptionsSchema = z.strictObject({ serviceTier: z.string().optional() });

/** An adapter whose options are checked when it is built, and whose call options per call. */
class OptionsAdapter extends AdapterBase {
  readonly name = 'opts';
  readonly options: z.output<typeof OptionsSchema>;
  constructor(config: AdapterConfigInput) {
    super('Opts', config, {});
    this.options = this.parseOptions(OptionsSchema, 'opts');
  }
  protected defaultModel() {
    return 'opts:small';
  }
  protected baseCapabilities() {
    return CAPS;
  }
  callOptionsOf(options: CallOptions) {
    return this.parseCallOptions(CallOptionsSchema, options);
  }
  complete(_request: CanonicalRequestInput): Promise<CanonicalResponse> {
    throw new Error('not called');
  }
  stream(_request: CanonicalRequestInput): AsyncIterable<StreamEvent> {
    throw new Error('not called');
  }
}

function refused(options: Record<string, unknown>): AdapterOptionError {
  try {
    new OptionsAdapter({ options });
  } catch (error) {
    if (error instanceof AdapterOptionError) return error;
    throw error;
  }
  throw new Error('the adapter took the options');
}

describe('AdapterBase.parseOptions: unknown options name the nearest known one', () => {
  it('a misspelt option is refused with the option it was meant to be; one like none alone', () => {
    const error = refused({ reasoning_efort: 'low', tool_id: {} });
    expect(error.path).toBe('options');
    expect(error.reason).toBe('unknown option "reasoning_efort"; did you mean "reasoning_effort"?');
    expect(error.message).toBe(
      'opts: options: unknown option "reasoning_efort"; did you mean "reasoning_effort"?',
    );
    expect(refused({ colour: 'red', tool_id: {} }).reason).toBe('unknown option "colour"');
  });

  it('a camelCase spelling is matched to its snake_case option', () => {
    expect(refused({ promptCaching: true, tool_id: {} }).reason).toBe(
      'unknown option "promptCaching"; did you mean "prompt_caching"?',
    );
  });

  it('an option of a nested object is matched among that object’s keys, under its path', () => {
    const error = refused({ tool_id: { patern: '^[a-z]+$' } });
    expect(error.path).toBe('options.tool_id');
    expect(error.reason).toBe('unknown option "patern"; did you mean "pattern"?');
  });

  it('a misspelt call option (providerOptions.<name>) names the nearest one too', () => {
    const adapter = new OptionsAdapter({ options: { tool_id: {} } });
    const call = () => adapter.callOptionsOf({ providerOptions: { opts: { service_tier: 'x' } } });
    expect(call).toThrow(InvalidRequestError);
    expect(call).toThrow(
      'providerOptions.opts: unknown option "service_tier"; did you mean "serviceTier"?',
    );
  });
});
