import { ToolDefinitionError, validateToolDefinition } from '@yourtool/core';
import { runReadmeExample } from '@yourtool/testkit';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  type FromJsonSchema,
  type ToolCallContext,
  type ToolHandler,
  ToolInputError,
  ToolRegistry,
} from '../src/index.js';

// Built without an annotation so it fits ToolCallContext whether or not newer optional members
// exist; passed as a variable, so no excess-property check applies.
const context = {
  session_id: 'ses_test',
  tool_use_id: 'toolu_test',
  workspace_path: '/tmp',
  signal: new AbortController().signal,
  progress: () => undefined,
};

/** Runs `name` as the session does: through the registry's registered tool. */
async function call(registry: ToolRegistry, name: string, input: Record<string, unknown>) {
  const tool = registry.get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool.run(input, context);
}

const weatherSchema = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name' },
    unit: { enum: ['c', 'f'] },
    days: { type: 'integer', minimum: 1 },
    tags: { type: 'array', items: { type: 'string' } },
    where: {
      type: 'object',
      properties: { lat: { type: 'number' }, lon: { type: 'number' } },
      required: ['lat', 'lon'],
    },
    note: { type: ['string', 'null'] },
    strict: { type: 'boolean' },
  },
  required: ['city', 'where'],
} as const;

describe('defineTool with a JSON-Schema literal', () => {
  it('registers in a ToolRegistry with the schema sent as written, validated by core', async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      name: 'weather',
      description: 'Current weather',
      side_effects: 'network',
      input_schema: weatherSchema,
      run: (input) => {
        seen.push(input);
        return `${input.city} at ${input.where.lat},${input.where.lon}`;
      },
    });
    const registry = new ToolRegistry([tool]);
    const [definition] = registry.definitions();
    expect(definition).toEqual(
      validateToolDefinition({
        name: 'weather',
        description: 'Current weather',
        side_effects: 'network',
        input_schema: weatherSchema,
      }),
    );
    const input = { city: 'Lyon', where: { lat: 45.7, lon: 4.8 }, unit: 'c' };
    await expect(call(registry, 'weather', input)).resolves.toBe('Lyon at 45.7,4.8');
    expect(seen).toEqual([input]);
  });

  it('refuses an input that does not match, naming the path, without calling run', async () => {
    let runs = 0;
    const registry = new ToolRegistry([
      defineTool({
        name: 'weather',
        description: 'Current weather',
        side_effects: 'none',
        input_schema: weatherSchema,
        run: () => {
          runs += 1;
          return 'ran';
        },
      }),
    ]);
    const failure = await call(registry, 'weather', {
      city: 'Lyon',
      where: { lat: 'north', lon: 4.8 },
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ToolInputError);
    const error = failure as ToolInputError;
    expect(error.toolName).toBe('weather');
    expect(error.issues.map((i) => i.path)).toEqual(['input.where.lat']);
    expect(error.message).toContain('invalid input for weather: input.where.lat');
    const missing = await call(registry, 'weather', { where: { lat: 1, lon: 2 } }).catch(
      (e: unknown) => e,
    );
    expect((missing as ToolInputError).issues.map((i) => i.path)).toEqual(['input.city']);
    expect(runs).toBe(0);
  });

  it('refuses a schema outside the subset when defined, with the path', () => {
    const define = () =>
      defineTool({
        name: 'pick',
        description: 'Pick one',
        side_effects: 'none',
        input_schema: {
          type: 'object',
          properties: { when: { type: 'string', oneOf: [{ format: 'date' }] } },
        },
        run: () => 'x',
      });
    expect(define).toThrow(ToolDefinitionError);
    expect(define).toThrow('input_schema.properties.when.oneOf');
  });

  it('infers the input type from the schema', () => {
    type Input = FromJsonSchema<typeof weatherSchema>;
    expectTypeOf<Input>().toEqualTypeOf<{
      city: string;
      where: { lat: number; lon: number };
      unit?: 'c' | 'f';
      days?: number;
      tags?: string[];
      note?: string | null;
      strict?: boolean;
    }>();
    // Inline literals need no `as const`: defineTool's type parameter is `const`.
    const tool = defineTool({
      name: 'search',
      description: 'Search',
      side_effects: 'read',
      input_schema: {
        type: 'object',
        properties: {
          query: { type: 'string' },
          limit: { type: 'number' },
          mode: { type: 'string', enum: ['fast', 'deep'] },
        },
        required: ['query'],
      },
      run: (input) => {
        expectTypeOf(input).toEqualTypeOf<{
          query: string;
          limit?: number;
          mode?: 'fast' | 'deep';
        }>();
        // @ts-expect-error: undeclared properties are not typed
        void input.qurey;
        return input.query;
      },
    });
    expectTypeOf(tool).toMatchTypeOf<ToolHandler>();
    expectTypeOf(tool.inputType).toEqualTypeOf<
      { query: string; limit?: number; mode?: 'fast' | 'deep' } | undefined
    >();
    expect(new ToolRegistry([tool]).get('search')?.definition.side_effects).toBe('read');
  });

  it('gives unknown, not a wrong type, for a widened schema node', () => {
    const widened: { type: string } = { type: 'string' };
    expectTypeOf<FromJsonSchema<typeof widened>>().toBeUnknown();
    expectTypeOf<FromJsonSchema<{ type: 'array' }>>().toEqualTypeOf<unknown[]>();
    expectTypeOf<FromJsonSchema<{ type: 'object' }>>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<FromJsonSchema<{ const: 'on' }>>().toEqualTypeOf<'on'>();
    expect(widened.type).toBe('string');
  });
});

describe('defineTool with a zod schema', () => {
  const input = z.object({
    path: z.string().describe('File to read'),
    encoding: z.enum(['utf8', 'base64']).default('utf8'),
    lines: z.number().int().optional(),
    range: z.object({ from: z.number(), to: z.number() }).optional(),
    labels: z.array(z.string()).optional(),
    owner: z.enum(['me', 'them']).nullable().optional(),
  });

  it('sends a JSON schema inside the subset, made by z.toJSONSchema', () => {
    const tool = defineTool({
      name: 'read_file',
      description: 'Read a file',
      side_effects: 'read',
      input,
      run: () => 'ok',
    });
    const [definition] = new ToolRegistry([tool]).definitions();
    expect(definition?.input_schema).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File to read' },
        encoding: { type: 'string', enum: ['utf8', 'base64'], default: 'utf8' },
        lines: { type: 'integer' },
        range: {
          type: 'object',
          properties: { from: { type: 'number' }, to: { type: 'number' } },
          required: ['from', 'to'],
        },
        labels: { type: 'array', items: { type: 'string' } },
        owner: { type: ['string', 'null'], enum: ['me', 'them', null] },
      },
      required: ['path'],
    });
    expect(() => validateToolDefinition(definition)).not.toThrow();
  });

  it('parses the input before run: defaults applied, unknown keys dropped', async () => {
    const seen: unknown[] = [];
    const registry = new ToolRegistry([
      defineTool({
        name: 'read_file',
        description: 'Read a file',
        side_effects: 'read',
        input,
        run: (parsed) => {
          seen.push(parsed);
          return `${parsed.path} as ${parsed.encoding}`;
        },
      }),
    ]);
    await expect(call(registry, 'read_file', { path: 'README.md', extra: 1 })).resolves.toBe(
      'README.md as utf8',
    );
    expect(seen).toEqual([{ path: 'README.md', encoding: 'utf8' }]);
  });

  it('refuses an input the schema does not parse, naming the path, without calling run', async () => {
    let runs = 0;
    const registry = new ToolRegistry([
      defineTool({
        name: 'read_file',
        description: 'Read a file',
        side_effects: 'read',
        input,
        run: () => {
          runs += 1;
          return 'ran';
        },
      }),
    ]);
    const failure = await call(registry, 'read_file', {
      path: 'a',
      range: { from: 1, to: 'end' },
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ToolInputError);
    expect((failure as ToolInputError).issues.map((i) => i.path)).toEqual(['input.range.to']);
    expect((failure as ToolInputError).message).toMatch(
      /^invalid input for read_file: input\.range\.to /,
    );
    expect(runs).toBe(0);
  });

  it('refuses a zod schema the subset cannot express, when defined', () => {
    expect(() =>
      defineTool({
        name: 'either',
        description: 'Union input',
        side_effects: 'none',
        input: z.object({
          v: z.union([z.object({ a: z.string() }), z.object({ b: z.number() })]),
        }),
        run: () => 'x',
      }),
    ).toThrow('input_schema.properties.v.anyOf');
    const unrepresentable = () =>
      defineTool({
        name: 'dated',
        description: 'Date input',
        side_effects: 'none',
        input: z.object({ at: z.date() }),
        run: () => 'x',
      });
    expect(unrepresentable).toThrow(ToolDefinitionError);
    expect(unrepresentable).toThrow('cannot be written as JSON Schema');
  });

  it('types run with the parsed (output) type of the schema', () => {
    const tool = defineTool({
      name: 'read_file',
      description: 'Read a file',
      side_effects: 'read',
      input,
      run: (parsed, ctx) => {
        expectTypeOf(parsed).toEqualTypeOf<z.output<typeof input>>();
        expectTypeOf(parsed.encoding).toEqualTypeOf<'utf8' | 'base64'>();
        expectTypeOf(parsed.lines).toEqualTypeOf<number | undefined>();
        expectTypeOf(ctx).toEqualTypeOf<ToolCallContext>();
        return parsed.path;
      },
    });
    expectTypeOf(tool.inputType).toEqualTypeOf<z.output<typeof input> | undefined>();
    expect(tool.definition.name).toBe('read_file');
  });
});

it('the README "Typed tools" example runs and prints what it says', async () => {
  expect(
    await runReadmeExample({
      testUrl: import.meta.url,
      packageName: '@yourtool/session',
      heading: '## Typed tools',
    }),
  ).toBe(3);
});
