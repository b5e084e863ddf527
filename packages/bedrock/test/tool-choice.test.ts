import {
  type AdapterCapabilities,
  type CanonicalRequest,
  createMemoryLogger,
  createMessage,
  newRequestId,
  newSessionId,
  ToolIdMap,
} from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import { type ToBedrockContext, toBedrockRequest } from '../src/codec/index.js';
import { familyOf } from '../src/families.js';
import { bedrockModelInfo } from '../src/models.js';

const CLAUDE = 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const LLAMA = 'bedrock:us.meta.llama3-3-70b-instruct-v1:0';

const CAPS: AdapterCapabilities = {
  supports_images: false,
  supports_thinking: true,
  supports_tools: true,
  supports_system_prompt: true,
  supports_structured_output: true,
  supports_streaming: true,
  supports_streaming_tool_calls: true,
  supports_parallel_tool_calls: true,
  supports_prompt_caching: false,
  max_context_tokens: 200_000,
  max_output_tokens: 64_000,
  accepted_image_media_types: [],
};

const readFile = {
  name: 'read_file',
  description: 'Read a file',
  input_schema: { type: 'object', properties: { path: { type: 'string' } } },
  side_effects: 'read' as const,
  requires_workspace: false,
};

function encode(
  model: string,
  tool_choice: CanonicalRequest['tool_choice'],
  extra: Partial<ToBedrockContext> = {},
) {
  const logger = createMemoryLogger();
  const request: CanonicalRequest = {
    request_id: newRequestId(),
    model,
    messages: [
      createMessage({
        session_id: newSessionId(),
        role: 'user',
        content: [{ type: 'text', text: 'q' }],
      }),
    ],
    tools: [readFile],
    stop_sequences: [],
    max_output_tokens: 4096,
    stream: false,
    ...(tool_choice === undefined ? {} : { tool_choice }),
  };
  const { request: out } = toBedrockRequest(request, {
    toolIdMap: new ToolIdMap(),
    capabilities: CAPS,
    logger,
    family: familyOf(model.slice('bedrock:'.length)),
    ...extra,
  });
  return { out, logger };
}

describe('toBedrockRequest: tool_choice', () => {
  it('maps auto, required (any) and a named tool on Claude; none offers no tools', () => {
    expect(encode(CLAUDE, undefined).out.toolConfig?.toolChoice).toBeUndefined();
    expect(encode(CLAUDE, 'auto').out.toolConfig?.toolChoice).toEqual({ auto: {} });
    expect(encode(CLAUDE, 'required').out.toolConfig?.toolChoice).toEqual({ any: {} });
    expect(encode(CLAUDE, { type: 'tool', name: 'read_file' }).out.toolConfig?.toolChoice).toEqual({
      tool: { name: 'read_file' },
    });
    expect(encode(CLAUDE, 'none').out.toolConfig).toBeUndefined();
  });

  it('sends a forced choice as auto with a WARN to a family that refuses it', () => {
    const { out, logger } = encode(LLAMA, 'required');
    expect(out.toolConfig?.toolChoice).toEqual({ auto: {} });
    expect(logger.warnings().map((w) => [w.obj.event, w.obj.reason])).toEqual([
      ['tool_choice_downgraded', 'the llama family takes no forced tool choice on Bedrock'],
    ]);
    expect(bedrockModelInfo(LLAMA.slice(8)).capabilities.supports_forced_tool_choice).toBe(false);
  });

  it("sends a forced choice as auto with a WARN while Claude's thinking is on", () => {
    const { out, logger } = encode(
      CLAUDE,
      { type: 'tool', name: 'read_file' },
      {
        options: { thinking: { budget_tokens: 2048 } },
      },
    );
    expect(out.additionalModelRequestFields).toMatchObject({ thinking: { type: 'enabled' } });
    expect(out.toolConfig?.toolChoice).toEqual({ auto: {} });
    expect(logger.warnings().some((w) => w.obj.event === 'tool_choice_downgraded')).toBe(true);
  });
});
