import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ANTHROPIC_TOOL_ID_RULES,
  conformsToToolIdRules,
  deriveProviderToolId,
  isCanonicalToolUseId,
  OPENAI_TOOL_ID_RULES,
  ToolIdConflictError,
  ToolIdMap,
} from './exports.js';

describe('ToolIdMap', () => {
  it('allocates a canonical id for a new provider id and returns it again', () => {
    const map = new ToolIdMap();
    const canonical = map.toCanonical('anthropic', 'toolu_01ABC');
    expect(isCanonicalToolUseId(canonical)).toBe(true);
    expect(map.toCanonical('anthropic', 'toolu_01ABC')).toBe(canonical);
    expect(map.toProviderId('anthropic', canonical, ANTHROPIC_TOOL_ID_RULES)).toBe('toolu_01ABC');
  });

  it('sends a canonical id from another provider as is when it conforms, and maps the reply back', () => {
    const map = new ToolIdMap();
    const canonical = map.toCanonical('anthropic', 'toolu_01ABC');
    const openaiId = map.toProviderId('openai', canonical, OPENAI_TOOL_ID_RULES);
    expect(openaiId).toBe(canonical);
    expect(openaiId.length).toBeLessThanOrEqual(40);
    expect(map.getCanonicalId('openai', openaiId)).toBe(canonical);
  });

  it('derives conforming, distinct ids for foreign ids that break the rules', () => {
    const map = new ToolIdMap();
    const long = 'call_abc|fc_0123456789abcdef0123456789abcdef0123456789';
    const also = 'call_abc|fc_0123456789abcdef0123456789abcdef0123456788';
    const a = map.toProviderId('openai', long, OPENAI_TOOL_ID_RULES);
    const b = map.toProviderId('openai', also, OPENAI_TOOL_ID_RULES);
    expect(conformsToToolIdRules(a, OPENAI_TOOL_ID_RULES)).toBe(true);
    expect(conformsToToolIdRules(b, OPENAI_TOOL_ID_RULES)).toBe(true);
    expect(a).not.toBe(b);
    expect(map.toProviderId('openai', long, OPENAI_TOOL_ID_RULES)).toBe(a);
    const c = map.toProviderId('anthropic', 'call with spaces/and:colons', ANTHROPIC_TOOL_ID_RULES);
    expect(c).toMatch(/^[a-zA-Z0-9_-]+$/);
  });

  it('avoids a derived id another canonical id already owns', () => {
    const taken = deriveProviderToolId('a b', ANTHROPIC_TOOL_ID_RULES);
    const map = new ToolIdMap([
      { canonical_id: 'tu_other', provider: 'anthropic', provider_id: taken },
    ]);
    const derived = map.toProviderId('anthropic', 'a b', ANTHROPIC_TOOL_ID_RULES);
    expect(derived).not.toBe(taken);
    expect(conformsToToolIdRules(derived, ANTHROPIC_TOOL_ID_RULES)).toBe(true);
  });

  it('derives ids for a strict pattern (Mistral: exactly nine letters or digits), collision-free', () => {
    const mistral = { pattern: /^[a-zA-Z0-9]{9}$/, maxLength: 9 };
    const map = new ToolIdMap();
    const ids = new Set<string>();
    const sources = [
      'tu_01JZ8Q3K4M5N6P7R8S9T0V1W2X',
      'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
      'call_abc123',
      'fc_1',
      ...Array.from(
        { length: 500 },
        (_, i) => `tu_01JZ8Q3K4M5N6P7R8S9T${String(i).padStart(6, '0')}`,
      ),
    ];
    for (const id of sources) {
      const derived = map.toProviderId('mistral', id, mistral);
      expect(derived).toMatch(/^[a-zA-Z0-9]{9}$/);
      ids.add(derived);
      expect(map.toProviderId('mistral', id, mistral), 'stable on replay').toBe(derived);
      expect(map.toCanonical('mistral', derived)).toBe(id);
    }
    expect(ids.size, 'no two canonical ids share one').toBe(sources.length);
  });

  it('tries rules.derive first, and names the rules when nothing can satisfy them', () => {
    const rules = {
      pattern: /^call-[0-9]+$/,
      derive: (id: string, attempt: number) => `call-${id.length}${attempt}`,
    };
    expect(deriveProviderToolId('tu_x', rules)).toBe('call-40');
    expect(() => deriveProviderToolId('tu_x', { pattern: /^Z{3}$/ })).toThrow(
      /satisfies pattern \/\^Z\{3\}\$\//,
    );
  });

  it('round-trips through JSON', () => {
    const map = new ToolIdMap();
    const a = map.toCanonical('anthropic', 'toolu_1');
    map.toProviderId('openai', a, OPENAI_TOOL_ID_RULES);
    map.toCanonical('openai', 'call_2');
    const restored = ToolIdMap.fromJSON(JSON.parse(JSON.stringify(map)));
    expect(restored.entries()).toEqual(map.entries());
    expect(restored.size).toBe(3);
    expect(restored.getCanonicalId('anthropic', 'toolu_1')).toBe(a);
  });

  it('refuses ambiguous links and malformed persisted data', () => {
    const map = new ToolIdMap([
      { canonical_id: 'tu_1', provider: 'openai', provider_id: 'call_1' },
    ]);
    expect(() =>
      map.set({ canonical_id: 'tu_2', provider: 'openai', provider_id: 'call_1' }),
    ).toThrowError(ToolIdConflictError);
    expect(() =>
      map.set({ canonical_id: 'tu_1', provider: 'openai', provider_id: 'call_9' }),
    ).toThrowError(ToolIdConflictError);
    expect(() =>
      map.set({ canonical_id: 'tu_1', provider: 'openai', provider_id: 'call_1' }),
    ).not.toThrow();
    expect(() => ToolIdMap.fromJSON([{ canonical_id: 'x' }])).toThrow();
  });

  it('never maps two canonical ids to one provider id (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 80 }), { minLength: 1, maxLength: 40 }),
        (ids) => {
          const map = new ToolIdMap();
          const out = ids.map((id) => map.toProviderId('openai', id, OPENAI_TOOL_ID_RULES));
          expect(new Set(out).size).toBe(ids.length);
          for (const [i, id] of out.entries()) {
            expect(conformsToToolIdRules(id, OPENAI_TOOL_ID_RULES)).toBe(true);
            expect(map.getCanonicalId('openai', id)).toBe(ids[i]);
          }
        },
      ),
    );
  });
});
