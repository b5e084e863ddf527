import type { z } from 'zod';
import { YourtoolError } from './errors.js';
import { quickParseMessage } from './fast-parse.js';
import { type Logger, silentLogger } from './logger.js';
import { isKnownContentBlockType } from './schemas/content.js';
import {
  CURRENT_SCHEMA_VERSION,
  KNOWN_METADATA_FIELDS,
  type Message,
  MessageSchema,
} from './schemas/message.js';

/** One problem found while parsing: where (a JSON path such as `content[2].input`) and what. */
export interface ParseIssue {
  path: string;
  message: string;
}

/** A stored or foreign message could not be read. `issues` name each offending path. */
export class MessageParseError extends YourtoolError {
  /** Every problem found. */
  readonly issues: ParseIssue[];
  /** The message id, when the input had a readable one. */
  readonly messageId: string | undefined;

  constructor(issues: ParseIssue[], messageId?: string, options?: { cause?: unknown }) {
    const where = messageId ? ` ${messageId}` : '';
    super(
      'message_parse_error',
      `cannot read message${where}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      options,
    );
    this.issues = issues;
    this.messageId = messageId;
  }
}

/** Options of {@link parseMessage}. */
export interface ParseMessageOptions {
  /** Where tolerated problems (unknown blocks, unknown fields, newer schema) are reported. */
  logger?: Logger;
  /**
   * What to do with a message written under a newer `schema_version` than this code knows:
   * `tolerate` (default) reads the fields it knows, skipping unknown blocks, with a WARN;
   * `reject` throws. New versions only add block types and fields (canonical-format §3.2).
   */
  newerSchemaVersion?: 'tolerate' | 'reject';
  /**
   * The object given is yours to give away (e.g. fresh from `JSON.parse`): the message returned
   * may share its objects instead of copies, which lets a well-formed message skip the schema's
   * copying (decision 0104). Implied for a string input. Default false.
   */
  reuse?: boolean;
}

/** Formats a zod path as `content[2].source.kind`. */
export function formatPath(path: ReadonlyArray<PropertyKey>, root = ''): string {
  let out = root;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '$' : out;
}

/** Converts a zod error into parse issues, each path prefixed with `root`. */
export function issuesFromZod(error: z.ZodError, root = ''): ParseIssue[] {
  return error.issues.map((issue) => ({
    path: formatPath(issue.path, root),
    message: issue.message,
  }));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface Tolerated {
  path: string;
  reason: string;
  type?: unknown;
  field?: string;
}

/**
 * Removes unknown block types (recursively inside tool results), recording each skip. Returns
 * the very array given when nothing is removed: stored messages are read through here, and
 * nearly all of them hold only known blocks.
 */
function filterBlocks(
  blocks: unknown,
  path: string,
  tolerated: Tolerated[],
  nested: boolean,
): unknown {
  if (!Array.isArray(blocks)) return blocks;
  let kept: unknown[] | null = null;
  for (let index = 0; index < blocks.length; index++) {
    const block: unknown = blocks[index];
    let next = block;
    if (isPlainObject(block)) {
      if (!isKnownContentBlockType(block.type)) {
        tolerated.push({
          path: `${path}[${index}]`,
          reason: 'unknown content block type skipped',
          type: block.type,
        });
        kept ??= blocks.slice(0, index);
        continue;
      }
      if (block.type === 'tool_result' && !nested) {
        const inner = filterBlocks(block.content, `${path}[${index}].content`, tolerated, true);
        if (inner !== block.content) next = { ...block, content: inner };
      }
    }
    // malformed blocks stay: the schema names them
    if (kept !== null) kept.push(next);
    else if (next !== block) {
      kept = blocks.slice(0, index);
      kept.push(next);
    }
  }
  return kept ?? blocks;
}

/** Where a walk over content blocks is: their path, where skips go, inside a tool result or not. */
interface BlockWalk {
  path: string;
  tolerated: Tolerated[];
  nested: boolean;
}

/**
 * Records the fields of known blocks that the schema does not know (ignored on read): the
 * blocks as given, walked beside the parsed blocks (unknown block types were skipped, so the
 * parsed list is the given one without them).
 */
function unknownBlockFields(given: unknown, parsed: readonly object[], walk: BlockWalk): void {
  if (!Array.isArray(given)) return;
  const { path, tolerated } = walk;
  let j = 0;
  for (let index = 0; index < given.length; index++) {
    const block: unknown = given[index];
    if (!isPlainObject(block) || !isKnownContentBlockType(block.type)) continue;
    const out = parsed[j++];
    if (out === undefined) return;
    for (const key of Object.keys(block)) {
      if (!(key in out)) {
        tolerated.push({
          path: `${path}[${index}].${key}`,
          reason: 'unknown block field ignored',
          field: key,
        });
      }
    }
    if (block.type === 'tool_result' && !walk.nested && 'content' in out) {
      const inner = (out as { content: unknown }).content;
      if (Array.isArray(inner)) {
        unknownBlockFields(block.content, inner, {
          path: `${path}[${index}].content`,
          tolerated,
          nested: true,
        });
      }
    }
  }
}

/** The metadata field names this version knows, for a quick lookup. */
const KNOWN_METADATA = new Set(KNOWN_METADATA_FIELDS);

/**
 * Reads a message from stored or foreign JSON (a string or an already-parsed value).
 *
 * Tolerant where the format allows growth: unknown content block types are skipped, unknown
 * fields on known blocks ignored, unknown metadata fields preserved, and a newer
 * `schema_version` read as far as it is understood, each with a WARN through `logger`.
 * Strict where data is wrong: a malformed known block, a missing field or a bad value throws
 * {@link MessageParseError} listing every offending path.
 */
export function parseMessage(input: unknown, options: ParseMessageOptions = {}): Message {
  const logger = options.logger ?? silentLogger;
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (cause) {
      throw new MessageParseError(
        [{ path: '$', message: `not valid JSON (${(cause as Error).message})` }],
        undefined,
        { cause },
      );
    }
  }
  if (!isPlainObject(value)) {
    throw new MessageParseError([{ path: '$', message: 'a message must be a JSON object' }]);
  }
  const messageId = typeof value.id === 'string' ? value.id : undefined;
  const tolerated: Tolerated[] = [];

  const version = value.schema_version;
  if (typeof version === 'number' && version > CURRENT_SCHEMA_VERSION) {
    if (options.newerSchemaVersion === 'reject') {
      throw new MessageParseError(
        [
          {
            path: 'schema_version',
            message: `version ${version} is newer than this code reads (${CURRENT_SCHEMA_VERSION})`,
          },
        ],
        messageId,
      );
    }
    tolerated.push({
      path: 'schema_version',
      reason: `schema_version ${version} is newer than ${CURRENT_SCHEMA_VERSION}; reading known fields only`,
    });
  }

  const content = filterBlocks(value.content, 'content', tolerated, false);
  const cleaned: Record<string, unknown> =
    content === value.content ? value : { ...value, content };
  if (isPlainObject(value.metadata)) {
    for (const key of Object.keys(value.metadata)) {
      if (!KNOWN_METADATA.has(key)) {
        tolerated.push({
          path: `metadata.${key}`,
          reason: 'unknown metadata field preserved',
          field: key,
        });
      }
    }
  }

  // A well-formed message read from JSON passes a quick check; anything else, the schema.
  let data = typeof input === 'string' || options.reuse ? quickParseMessage(cleaned) : null;
  if (data === null) {
    const parsed = MessageSchema.safeParse(cleaned);
    if (!parsed.success) throw new MessageParseError(issuesFromZod(parsed.error), messageId);
    data = parsed.data;
    unknownBlockFields(value.content, data.content, { path: 'content', tolerated, nested: false });
  }

  for (const t of tolerated) {
    logger.warn(
      {
        event: 'tolerant_read',
        message_id: messageId,
        session_id: data.session_id,
        path: t.path,
        ...(t.type === undefined ? {} : { block_type: t.type }),
        ...(t.field === undefined ? {} : { field: t.field }),
      },
      `message ${messageId}: ${t.reason} at ${t.path}`,
    );
  }
  return data;
}

/**
 * Serializes a message to the JSON of the data contract (snake_case field names). Parsing the
 * result with {@link parseMessage} gives an equal message.
 */
export function serializeMessage(message: Message): string {
  return JSON.stringify(message);
}
