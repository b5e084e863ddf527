import { checkToolInputSchema } from '@yourtool/core';
import {
  fitsToolNameRules,
  GEMINI_TOOL_NAME_RULES,
  STRICT_TOOL_NAME_RULES,
} from '@yourtool/core/adapter';
import type { RecordedRequest } from '../src/index.js';

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);

/** Keywords each provider has refused in tool schemas (research notes: Gemini issues, OpenAI). */
const REFUSED_ANYWHERE = [
  '$ref',
  '$defs',
  'definitions',
  'anyOf',
  'oneOf',
  'allOf',
  '$schema',
  'title',
];

function keywordsIn(node: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const item of node) keywordsIn(item, found);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      found.add(key);
      if (key === 'properties' && value && typeof value === 'object') {
        for (const child of Object.values(value)) keywordsIn(child, found);
      } else keywordsIn(value, found);
    }
  }
  return found;
}

/** The declared tools of a request as the wire carries them: name and parameter schema. */
export function wireTools(request: RecordedRequest): { name: string; schema: unknown }[] {
  const body = request.body as Json;
  switch (request.format) {
    case 'anthropic':
      return list(body.tools).map((t) => ({ name: String(t.name), schema: t.input_schema }));
    case 'openai-responses':
      return list(body.tools).map((t) => ({ name: String(t.name), schema: t.parameters }));
    case 'openai-chat':
      return list(body.tools).map((t) => ({
        name: String((t.function as Json).name),
        schema: (t.function as Json).parameters,
      }));
    case 'gemini':
      return list(body.tools)
        .flatMap((t) => list(t.functionDeclarations))
        .map((d) => ({ name: String(d.name), schema: d.parametersJsonSchema ?? d.parameters }));
    default:
      throw new Error(`no rules for format ${request.format}`);
  }
}

/** Problems of a request's tool declarations under its wire's rules; empty when accepted. */
export function toolDeclarationProblems(request: RecordedRequest): string[] {
  const rules = request.format === 'gemini' ? GEMINI_TOOL_NAME_RULES : STRICT_TOOL_NAME_RULES;
  const problems: string[] = [];
  for (const { name, schema } of wireTools(request)) {
    if (!fitsToolNameRules(name, rules)) problems.push(`${name}: name breaks ${request.format}`);
    for (const issue of checkToolInputSchema(schema))
      problems.push(`${name}: ${issue.path} ${issue.message}`);
    const used = keywordsIn(schema, new Set());
    for (const keyword of REFUSED_ANYWHERE)
      if (used.has(keyword)) problems.push(`${name}: uses ${keyword}`);
  }
  return problems;
}

/** Each tool call of the request paired with its result: [call id or name, answered?]. */
export function toolCallPairs(
  request: RecordedRequest,
): { call: string; name: string; answered: boolean }[] {
  const body = request.body as Json;
  if (request.format === 'anthropic') {
    const parts = list(body.messages).flatMap((m) => list(m.content));
    const results = new Set(
      parts.filter((p) => p.type === 'tool_result').map((p) => String(p.tool_use_id)),
    );
    return parts
      .filter((p) => p.type === 'tool_use')
      .map((p) => ({
        call: String(p.id),
        name: String(p.name),
        answered: results.has(String(p.id)),
      }));
  }
  if (request.format === 'openai-responses') {
    const items = list(body.input);
    const outputs = new Set(
      items.filter((i) => i.type === 'function_call_output').map((i) => String(i.call_id)),
    );
    return items
      .filter((i) => i.type === 'function_call')
      .map((i) => ({
        call: String(i.call_id),
        name: String(i.name),
        answered: outputs.has(String(i.call_id)),
      }));
  }
  if (request.format === 'openai-chat') {
    const messages = list(body.messages);
    const answered = new Set(
      messages.filter((m) => m.role === 'tool').map((m) => String(m.tool_call_id)),
    );
    return messages
      .flatMap((m) => list(m.tool_calls))
      .map((c) => ({
        call: String(c.id),
        name: String((c.function as Json).name),
        answered: answered.has(String(c.id)),
      }));
  }
  if (request.format === 'gemini') {
    const parts = list(body.contents).flatMap((c) => list(c.parts));
    const answered = parts
      .filter((p) => p.functionResponse)
      .map((p) => String((p.functionResponse as Json).name));
    return parts
      .filter((p) => p.functionCall)
      .map((p) => {
        const name = String((p.functionCall as Json).name);
        return { call: name, name, answered: answered.includes(name) };
      });
  }
  throw new Error(`no pairing rule for ${request.format}`);
}
