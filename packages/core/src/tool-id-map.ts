import type { z } from 'zod';
import { YourtoolError } from './errors.js';
import { newToolUseId } from './ids.js';
import { builtSchema, lazySchema } from './lazy-schema.js';
import { loadZod } from './load-zod.js';

/** Constraints a provider puts on tool call ids. */
export interface ToolIdRules {
  /** Characters allowed (the whole id must match). */
  pattern?: RegExp;
  /** Longest id the provider accepts. */
  maxLength?: number;
  /**
   * Derives a candidate id for `canonicalId`; `attempt` counts up from 0 when a candidate was
   * taken by another canonical id or broke the rules. Tried before the built-in derivations.
   * Must be deterministic (the same id for the same input), so replays send the same ids.
   */
  derive?: (canonicalId: string, attempt: number) => string;
}

/** Anthropic: tool use ids must match `^[a-zA-Z0-9_-]+$`. */
export const ANTHROPIC_TOOL_ID_RULES: ToolIdRules = { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 256 };
/** OpenAI Chat Completions: tool call ids of at most 40 characters. */
export const OPENAI_TOOL_ID_RULES: ToolIdRules = { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 40 };

/** One persisted link between a canonical tool use id and a provider's id for it. */
export const ToolIdMapEntrySchema = lazySchema((z) =>
  z.object({
    canonical_id: z.string().min(1),
    provider: z.string().min(1),
    provider_id: z.string().min(1),
  }),
);
/** A tool id map entry. */
export type ToolIdMapEntry = z.output<typeof ToolIdMapEntrySchema>;

/** Thrown when a link would make the map ambiguous (one provider id, two canonical ids). */
export class ToolIdConflictError extends YourtoolError {
  constructor(message: string) {
    super('tool_id_conflict', message);
  }
}

/** Whether `id` satisfies `rules`. */
export function conformsToToolIdRules(id: string, rules: ToolIdRules): boolean {
  if (id.length === 0) return false;
  if (rules.maxLength !== undefined && id.length > rules.maxLength) return false;
  return rules.pattern === undefined || rules.pattern.test(id);
}

/** 32-bit FNV-1a of a string, in base 36: a short stable fingerprint, not a security hash. */
function fingerprint(value: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    hash ^= value.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36).padStart(7, '0');
}

/** `length` characters of `[a-z0-9]` derived from `value` (fingerprints of it, chained). */
function alphanumeric(value: string, length: number): string {
  let out = '';
  for (let round = 0; out.length < length; round++) out += fingerprint(`${value}|${round}`);
  return out.slice(0, length);
}

/**
 * Derives a provider-conforming id for a canonical id, deterministically: the canonical id
 * itself when it already conforms (canonical `tu_<ulid>` ids conform to every known provider);
 * otherwise, in order, the first candidate that satisfies the rules and is free: `rules.derive`
 * when given; the id with disallowed characters replaced by `_`, shortened to fit, and suffixed
 * with `_` and a fingerprint of the original; the same with letters and digits only; and a
 * fingerprint of letters and digits alone, `maxLength` long (16 without one), for strict
 * patterns such as Mistral's nine alphanumerics. `isTaken` reports ids already used for another
 * canonical id; then every derivation is tried again with a counter. Throws
 * {@link ToolIdConflictError} when none satisfies the rules.
 */
export function deriveProviderToolId(
  canonicalId: string,
  rules: ToolIdRules,
  isTaken: (candidate: string) => boolean = () => false,
): string {
  if (conformsToToolIdRules(canonicalId, rules) && !isTaken(canonicalId)) return canonicalId;
  const sanitized = canonicalId.replace(/[^a-zA-Z0-9_-]/g, '_');
  const alnum = canonicalId.replace(/[^a-zA-Z0-9]/g, '');
  const fit = (head: string, suffix: string) => {
    const room = rules.maxLength === undefined ? head.length : rules.maxLength - suffix.length;
    return `${head.slice(0, Math.max(0, room))}${suffix}`;
  };
  for (let attempt = 0; attempt < 1000; attempt++) {
    const seed = attempt === 0 ? canonicalId : `${canonicalId}#${attempt}`;
    const print = fingerprint(seed);
    const candidates = [
      ...(rules.derive ? [rules.derive(canonicalId, attempt)] : []),
      fit(sanitized, `_${print}`),
      fit(alnum, print),
      alphanumeric(seed, rules.maxLength ?? 16),
    ];
    for (const candidate of candidates) {
      if (conformsToToolIdRules(candidate, rules) && !isTaken(candidate)) return candidate;
    }
  }
  throw new ToolIdConflictError(
    `could not derive a provider id for tool use "${canonicalId}" that satisfies ${describeRules(rules)} and is free`,
  );
}

function describeRules(rules: ToolIdRules): string {
  const parts = [
    rules.pattern ? `pattern ${rules.pattern}` : null,
    rules.maxLength !== undefined ? `maxLength ${rules.maxLength}` : null,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' and ') : 'no rules';
}

/**
 * A session's bidirectional map between canonical tool use ids (`tu_<ulid>`) and the ids each
 * provider used or will use for them (canonical-format §6.2). Pass the session's map to an
 * adapter call (`CallOptions.toolIdMap`); persist it with `entries()` and restore it with
 * `ToolIdMap.fromJSON`.
 */
export class ToolIdMap {
  readonly #byProviderId = new Map<string, Map<string, string>>();
  readonly #byCanonical = new Map<string, Map<string, string>>();

  /** Creates a map, optionally restored from persisted entries. */
  constructor(entries: Iterable<ToolIdMapEntry> = []) {
    for (const entry of entries) this.set(entry);
  }

  /** Restores a map from `toJSON()` output, validating its shape. */
  static fromJSON(json: unknown): ToolIdMap {
    return new ToolIdMap(loadZod().array(builtSchema(ToolIdMapEntrySchema)).parse(json));
  }

  /** Number of links. */
  get size(): number {
    let n = 0;
    for (const links of this.#byProviderId.values()) n += links.size;
    return n;
  }

  /**
   * Records a link. Re-recording the same link is a no-op; linking a provider id or a canonical
   * id that is already linked differently for that provider throws {@link ToolIdConflictError}.
   */
  set(entry: ToolIdMapEntry): void {
    const { canonical_id, provider, provider_id } = entry;
    const byProviderId = this.#links(this.#byProviderId, provider);
    const byCanonical = this.#links(this.#byCanonical, provider);
    const existingCanonical = byProviderId.get(provider_id);
    const existingProviderId = byCanonical.get(canonical_id);
    if (existingCanonical === canonical_id && existingProviderId === provider_id) return;
    if (existingCanonical !== undefined) {
      throw new ToolIdConflictError(
        `${provider} id "${provider_id}" is already linked to "${existingCanonical}", not "${canonical_id}"`,
      );
    }
    if (existingProviderId !== undefined) {
      throw new ToolIdConflictError(
        `"${canonical_id}" is already linked to ${provider} id "${existingProviderId}", not "${provider_id}"`,
      );
    }
    byProviderId.set(provider_id, canonical_id);
    byCanonical.set(canonical_id, provider_id);
  }

  /** The canonical id linked to a provider id, if any. */
  getCanonicalId(provider: string, providerId: string): string | undefined {
    return this.#byProviderId.get(provider)?.get(providerId);
  }

  /** The provider id linked to a canonical id for `provider`, if any. */
  getProviderId(provider: string, canonicalId: string): string | undefined {
    return this.#byCanonical.get(provider)?.get(canonicalId);
  }

  /**
   * Wire → canonical: the canonical id for an id the provider issued, allocating a new
   * `tu_<ulid>` (and recording the link) the first time the provider id is seen.
   */
  toCanonical(provider: string, providerId: string): string {
    const known = this.getCanonicalId(provider, providerId);
    if (known !== undefined) return known;
    const canonicalId = newToolUseId();
    this.set({ canonical_id: canonicalId, provider, provider_id: providerId });
    return canonicalId;
  }

  /**
   * Canonical → wire: the id to send to `provider` for a canonical id. The provider's own id
   * when this canonical id came from it (and still satisfies `rules`); otherwise a derived id
   * that satisfies `rules` and collides with no other link, recorded for later turns.
   */
  toProviderId(provider: string, canonicalId: string, rules: ToolIdRules = {}): string {
    const known = this.getProviderId(provider, canonicalId);
    if (known !== undefined && conformsToToolIdRules(known, rules)) return known;
    const byProviderId = this.#links(this.#byProviderId, provider);
    const derived = deriveProviderToolId(canonicalId, rules, (candidate) => {
      const owner = byProviderId.get(candidate);
      return owner !== undefined && owner !== canonicalId;
    });
    if (known === undefined) {
      this.set({ canonical_id: canonicalId, provider, provider_id: derived });
    }
    return derived;
  }

  /** Every link, for persistence. */
  entries(): ToolIdMapEntry[] {
    const out: ToolIdMapEntry[] = [];
    for (const [provider, links] of this.#byCanonical) {
      for (const [canonical_id, provider_id] of links)
        out.push({ canonical_id, provider, provider_id });
    }
    return out;
  }

  /** Same as {@link entries}; lets `JSON.stringify(map)` persist the map. */
  toJSON(): ToolIdMapEntry[] {
    return this.entries();
  }

  #links(index: Map<string, Map<string, string>>, provider: string): Map<string, string> {
    let links = index.get(provider);
    if (!links) {
      links = new Map();
      index.set(provider, links);
    }
    return links;
  }
}
