import { createAnthropic } from '@ai-sdk/anthropic';
import { AnthropicAdapter } from '@yourtool/anthropic';
import { MemorySessionStore } from '@yourtool/core/memory-store';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { defineTool, SessionManager, ToolRegistry } from '@yourtool/session';
import { startScriptedProvider, text, thinking, toolCall } from '@yourtool/testing';
import { describe, expect, it, onTestFinished } from 'vitest';
import { AiSdkAdapter } from '../src/index.js';

type Block = {
  type: string;
  id?: string;
  tool_use_id?: string;
  signature?: string;
  thinking?: string;
};
type Body = { messages: Array<{ role: string; content: string | Block[] }> };

const blocksOf = (body: unknown): Block[] =>
  (body as Body).messages.flatMap((message) =>
    typeof message.content === 'string' ? [] : message.content,
  );

describe('a session swaps between an AI SDK model and our own adapter', () => {
  it('carries the history both ways, and the AI SDK model gets its signed thinking back', async () => {
    const provider = await startScriptedProvider();
    onTestFinished(() => provider.close());
    const registry = ModelRegistry.fromYaml(
      `
adapters:
  aisdk: { type: aisdk, api_key: test-key, max_retries: 0 }
  anthropic: { type: anthropic, api_key: test-key, base_url: ${provider.url}, max_retries: 0 }
models:
  aisdk:claude-sonnet-4-6: { adapter: aisdk, wire_name: claude-sonnet-4-6, aliases: [bridged] }
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
      {
        factories: {
          aisdk: (config, runtime) =>
            new AiSdkAdapter(
              createAnthropic({ apiKey: 'test-key', baseURL: `${provider.url}/v1` })(
                'claude-sonnet-4-6',
              ),
              { name: 'aisdk', config, runtime, capabilities: { supports_thinking: true } },
            ),
          anthropic: (config, runtime) => new AnthropicAdapter(config, runtime),
        },
      },
    );
    const router = new Router({ registry, config: parseRoutingConfig('global_default: bridged') });
    const tools = [
      defineTool({
        name: 'lookup',
        description: 'Looks a word up.',
        side_effects: 'read',
        input_schema: {
          type: 'object',
          properties: { word: { type: 'string' } },
          required: ['word'],
        },
        run: ({ word }) => `${word}: a greeting`,
      }),
    ];
    const manager = new SessionManager({
      store: new MemorySessionStore(),
      router,
      pricing: defaultPriceTable(),
      tools: new ToolRegistry(tools),
    });
    const session = await manager.createSession({ workspace_path: '/w' });

    // turn 1 on the AI SDK model: signed thinking, a tool call, then the answer
    provider.reply(
      thinking('Look it up.', { signature: 'sig-aisdk' }),
      toolCall('lookup', { word: 'hi' }),
    );
    provider.reply(text('It is a greeting.'));
    const first = await manager.sendAndWait(session.id, 'What is hi?');
    expect(first.end).toBe('end_turn');
    expect(first.steps).toBe(2);

    // turn 2 on our Anthropic adapter: the tool exchange arrives, the foreign thinking does not
    await manager.swapModel(session.id, 'sonnet');
    provider.reply(text('Still a greeting.'));
    await manager.sendAndWait(session.id, 'Sure?');
    const ours = blocksOf(provider.requests.at(-1)!.body);
    const use = ours.find((block) => block.type === 'tool_use')!;
    expect(ours.find((block) => block.type === 'tool_result')?.tool_use_id).toBe(use.id);
    expect(ours.some((block) => block.type === 'thinking')).toBe(false);

    // turn 3 back on the AI SDK model: its own thinking returns with the signature it carried
    await manager.swapModel(session.id, 'bridged');
    provider.reply(text('Yes.'));
    await manager.sendAndWait(session.id, 'Really?');
    const back = blocksOf(provider.requests.at(-1)!.body);
    expect(back.find((block) => block.type === 'thinking')).toMatchObject({
      thinking: 'Look it up.',
      signature: 'sig-aisdk',
    });
    expect(provider.requests.map((request) => request.format)).toEqual(Array(4).fill('anthropic'));
  });
});
