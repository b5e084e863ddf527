/**
 * Bedrock's request rules for Converse, as a validator of the JSON body the SDK sent (facts from
 * src/families.ts and decisions 0166-0168): what a real Bedrock would refuse, one line each. The
 * per-family facts are written out here rather than read from the family table, so a wrong
 * table entry fails these tests instead of moving the rule with it.
 */

/** What one target family takes on Converse. */
export interface FamilyFacts {
  name: string;
  /** Its tool use id rule. */
  toolId: RegExp;
  /** Where it takes cache points. */
  cachePoints: { system: boolean; tools: boolean; messages: boolean };
  /** Whether it takes its own signed or redacted reasoning back. */
  reasoningBack: boolean;
  /** Whether it takes images. */
  images: boolean;
}

/** The facts of the four replay targets' families. */
export const FAMILY_FACTS = {
  claude: {
    name: 'claude',
    toolId: /^[a-zA-Z0-9_-]{1,64}$/,
    cachePoints: { system: true, tools: true, messages: true },
    reasoningBack: true,
    images: true,
  },
  mistral: {
    name: 'mistral',
    toolId: /^[a-zA-Z0-9]{9}$/,
    cachePoints: { system: false, tools: false, messages: false },
    reasoningBack: false,
    images: true,
  },
  llama: {
    name: 'llama',
    toolId: /^[a-zA-Z0-9_-]{1,64}$/,
    cachePoints: { system: false, tools: false, messages: false },
    reasoningBack: false,
    images: true,
  },
  nova: {
    name: 'nova',
    toolId: /^[a-zA-Z0-9_-]{1,64}$/,
    cachePoints: { system: true, tools: false, messages: true },
    reasoningBack: false,
    images: true,
  },
} as const satisfies Record<string, FamilyFacts>;

/** A Converse content block as it appears in the JSON body (bytes as base64 strings). */
export interface WireBlock {
  text?: string;
  image?: { format?: string; source?: { bytes?: string } };
  toolUse?: { toolUseId?: string; name?: string; input?: unknown };
  toolResult?: { toolUseId?: string; content?: WireBlock[]; status?: string };
  reasoningContent?: {
    reasoningText?: { text?: string; signature?: string };
    redactedContent?: string;
  };
  cachePoint?: { type?: string };
}

/** A Converse request body as the loopback server received it. */
export interface WireBody {
  messages?: Array<{ role?: string; content?: WireBlock[] }>;
  system?: WireBlock[];
  toolConfig?: {
    tools?: Array<{
      toolSpec?: { name?: string; description?: string; inputSchema?: { json?: unknown } };
      cachePoint?: unknown;
    }>;
  };
}

/** What the target accepts beyond the family's rules. */
export interface ReplayTarget {
  family: FamilyFacts;
  /**
   * Reasoning strings (text, signature, redacted bytes as base64) of turns the target model
   * made itself: the only reasoning it may receive.
   */
  ownReasoning: readonly string[];
}

const MAX_CACHE_POINTS = 4;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const IMAGE_FORMATS: readonly string[] = ['png', 'jpeg', 'gif', 'webp'];

const blank = (text: string | undefined) => text === undefined || text.trim() === '';

/** Problems of the tool definitions, and the names they declare. */
function toolProblems(body: WireBody, target: ReplayTarget): [string[], Set<string>] {
  const problems: string[] = [];
  const names = new Set<string>();
  (body.toolConfig?.tools ?? []).forEach((tool, i) => {
    if (tool.cachePoint !== undefined) {
      if (!target.family.cachePoints.tools) {
        problems.push(`toolConfig.tools[${i}]: ${target.family.name} takes no cache point here`);
      }
      return;
    }
    const spec = tool.toolSpec;
    if (!spec?.name || !TOOL_NAME.test(spec.name)) {
      problems.push(`toolConfig.tools[${i}].name ${spec?.name}`);
    }
    if (blank(spec?.description)) problems.push(`toolConfig.tools[${i}]: empty description`);
    const schema = spec?.inputSchema?.json as { type?: unknown } | undefined;
    if (schema?.type !== 'object') problems.push(`toolConfig.tools[${i}]: schema root not object`);
    if (spec?.name) names.add(spec.name);
  });
  return [problems, names];
}

/** Problems of one block of a message's content (or a tool result's content). */
function blockProblems(block: WireBlock, where: string, target: ReplayTarget): string[] {
  const problems: string[] = [];
  if ('text' in block && blank(block.text)) problems.push(`${where}: blank text`);
  if (block.image) {
    const { format, source } = block.image;
    if (!format || !IMAGE_FORMATS.includes(format)) problems.push(`${where}: image ${format}`);
    if (!target.family.images) problems.push(`${where}: family takes none`);
    if (!source?.bytes) problems.push(`${where}: image without bytes`);
  }
  const reasoning = block.reasoningContent;
  if (reasoning) {
    const signed = reasoning.reasoningText;
    const parts = signed ? [signed.text ?? '', signed.signature ?? ''] : [];
    if (reasoning.redactedContent !== undefined) parts.push(reasoning.redactedContent);
    if (!target.family.reasoningBack) problems.push(`${where}: reasoning sent`);
    if (signed && blank(signed.signature)) problems.push(`${where}: unsigned reasoning`);
    if (parts.length === 0 || parts.some((p) => !target.ownReasoning.includes(p))) {
      problems.push(`${where}: reasoning another model made`);
    }
  }
  for (const [i, inner] of (block.toolResult?.content ?? []).entries()) {
    problems.push(...blockProblems(inner, `${where}.toolResult.content[${i}]`, target));
  }
  return problems;
}

/** Problems of the cache points: how many, and where. */
function cacheProblems(body: WireBody, target: ReplayTarget): string[] {
  const problems: string[] = [];
  const places = target.family.cachePoints;
  const inSystem = (body.system ?? []).filter((b) => b.cachePoint).length;
  const inTools = (body.toolConfig?.tools ?? []).filter((t) => t.cachePoint).length;
  let inMessages = 0;
  (body.messages ?? []).forEach((m, i) => {
    (m.content ?? []).forEach((b, j) => {
      if (!b.cachePoint) return;
      inMessages++;
      if (m.content?.[j - 1]?.reasoningContent) {
        problems.push(`messages[${i}].content[${j}]: cache point right after reasoning`);
      }
    });
  });
  if (inSystem > 0 && !places.system) problems.push('system: cache point not taken');
  if (inMessages > 0 && !places.messages) problems.push('messages: cache point not taken');
  const total = inSystem + inTools + inMessages;
  if (total > MAX_CACHE_POINTS) problems.push(`${total} cache points (at most 4)`);
  return problems;
}

/** Problems of one turn's tool uses and results against the turn before it. */
function toolTurnProblems(
  body: WireBody,
  i: number,
  seen: Set<string>,
  target: ReplayTarget,
): string[] {
  const problems: string[] = [];
  const messages = body.messages ?? [];
  const content = messages[i]?.content ?? [];
  const uses = (m: (typeof messages)[number] | undefined) =>
    (m?.content ?? []).flatMap((b) => (b.toolUse ? [b.toolUse.toolUseId ?? ''] : []));
  for (const id of uses(messages[i])) {
    if (!target.family.toolId.test(id)) {
      problems.push(`messages[${i}]: tool use id "${id}"`);
    }
    if (seen.has(id)) problems.push(`messages[${i}]: tool use id "${id}" used twice`);
    seen.add(id);
  }
  const asked = messages[i - 1]?.role === 'assistant' ? uses(messages[i - 1]) : [];
  const answered = content.flatMap((b) => (b.toolResult ? [b.toolResult.toolUseId ?? ''] : []));
  for (const id of answered) {
    if (!asked.includes(id)) problems.push(`messages[${i}]: result for "${id}" answers no call`);
  }
  if (messages[i]?.role === 'user') {
    for (const id of asked) {
      if (!answered.includes(id)) problems.push(`messages[${i}]: call "${id}" left unanswered`);
    }
  }
  return problems;
}

/** Every rule the body breaks (empty when Bedrock would take it). */
export function bedrockViolations(body: WireBody, target: ReplayTarget): string[] {
  const messages = body.messages ?? [];
  if (messages.length === 0) return ['no messages'];
  const [problems, declared] = toolProblems(body, target);
  if (messages[0]?.role !== 'user') problems.push('the first turn is not a user turn');
  (body.system ?? []).forEach((b, i) => {
    if ('text' in b && blank(b.text)) problems.push(`system[${i}]: blank text`);
  });
  const ids = new Set<string>();
  let toolBlocks = false;
  messages.forEach((m, i) => {
    if (m.role !== 'user' && m.role !== 'assistant')
      problems.push(`messages[${i}]: role ${m.role}`);
    if (i > 0 && messages[i - 1]?.role === m.role) problems.push(`messages[${i}]: same role twice`);
    const content = m.content ?? [];
    if (content.filter((b) => !b.cachePoint).length === 0) problems.push(`messages[${i}]: empty`);
    content.forEach((b, j) => {
      problems.push(...blockProblems(b, `messages[${i}].content[${j}]`, target));
      if (b.toolUse || b.toolResult) toolBlocks = true;
      if (b.toolUse && !declared.has(b.toolUse.name ?? '')) {
        problems.push(`messages[${i}].content[${j}]: tool ${b.toolUse.name} not in toolConfig`);
      }
      if (m.role === 'user' && (b.toolUse || b.reasoningContent)) {
        problems.push(`messages[${i}].content[${j}]: assistant block in a user turn`);
      }
      if (m.role === 'assistant' && b.toolResult) {
        problems.push(`messages[${i}].content[${j}]: tool result in an assistant turn`);
      }
    });
    problems.push(...toolTurnProblems(body, i, ids, target));
  });
  if (toolBlocks && body.toolConfig === undefined) problems.push('tool blocks without toolConfig');
  problems.push(...cacheProblems(body, target));
  return problems;
}
