import { type PriceTable, parsePriceTable } from './table.js';

/**
 * The bundled price table, in the YAML format users write overrides in. It is inlined here
 * (not read from a file at run time) so it works the same from the ESM and CommonJS builds and
 * from bundlers.
 *
 * Public list prices for standard (not batch, not priority, not regional) API usage.
 */
export const DEFAULT_PRICE_TABLE_YAML = `# @yourtool/pricing default price table. USD per million tokens.
pricing_version: "2026-11-22"
effective_date: 2026-11-22
source: Public list prices of each provider, read 2026-11-22 (per-model sources below)
notes: >-
  Standard API usage only: batch discounts, priority tiers, regional or data-residency uplifts
  and tool fees (web search, code execution) are not modelled. input_tokens are the uncached
  input tokens; cache reads and writes are priced separately (docs/decisions/0015).

models:
  anthropic:claude-opus-4-7:
    input_per_mtok_usd: 5.00
    output_per_mtok_usd: 25.00
    cached_read_per_mtok_usd: 0.50
    cache_write_5m_per_mtok_usd: 6.25
    cache_write_1h_per_mtok_usd: 10.00
    source: https://platform.claude.com/docs/en/about-claude/pricing
    notes: 1M-token context window at the standard rates (no long-context premium).

  anthropic:claude-sonnet-4-6:
    input_per_mtok_usd: 3.00
    output_per_mtok_usd: 15.00
    cached_read_per_mtok_usd: 0.30
    cache_write_5m_per_mtok_usd: 3.75
    cache_write_1h_per_mtok_usd: 6.00
    source: https://platform.claude.com/docs/en/about-claude/pricing
    notes: 1M-token context window at the standard rates (no long-context premium).

  anthropic:claude-haiku-4-5:
    input_per_mtok_usd: 1.00
    output_per_mtok_usd: 5.00
    cached_read_per_mtok_usd: 0.10
    cache_write_5m_per_mtok_usd: 1.25
    cache_write_1h_per_mtok_usd: 2.00
    source: https://platform.claude.com/docs/en/about-claude/pricing
    notes: 200k-token context window, one flat price.

  openai:gpt-5:
    input_per_mtok_usd: 1.25
    output_per_mtok_usd: 10.00
    cached_read_per_mtok_usd: 0.125
    source: https://developers.openai.com/api/docs/pricing
    notes: OpenAI charges nothing extra for cache writes and reports none.

  openai:gpt-5-mini:
    input_per_mtok_usd: 0.25
    output_per_mtok_usd: 2.00
    cached_read_per_mtok_usd: 0.025
    source: https://developers.openai.com/api/docs/pricing
    notes: OpenAI charges nothing extra for cache writes and reports none.

  # Gemini: Gemini API paid tier, standard (not batch, not flex/priority). Thinking tokens are
  # billed as output. Context caching is billed per token read (below) plus storage per hour,
  # which is not per request and is not modelled; Gemini reports no cache writes.
  google:gemini-3-pro-preview:
    input_per_mtok_usd: 2.00
    output_per_mtok_usd: 12.00
    cached_read_per_mtok_usd: 0.20
    long_context:
      above_input_tokens: 200000
      input_per_mtok_usd: 4.00
      output_per_mtok_usd: 18.00
      cached_read_per_mtok_usd: 0.40
    source: https://ai.google.dev/gemini-api/docs/pricing
    notes: Prompts over 200k tokens are billed at the higher rates for the whole request.

  google:gemini-3-flash-preview:
    input_per_mtok_usd: 0.50
    output_per_mtok_usd: 3.00
    cached_read_per_mtok_usd: 0.05
    source: https://ai.google.dev/gemini-api/docs/pricing
    notes: Text, image and video input; audio input is billed higher and is not modelled.

  google:gemini-2.5-pro:
    input_per_mtok_usd: 1.25
    output_per_mtok_usd: 10.00
    cached_read_per_mtok_usd: 0.125
    long_context:
      above_input_tokens: 200000
      input_per_mtok_usd: 2.50
      output_per_mtok_usd: 15.00
      cached_read_per_mtok_usd: 0.25
    source: https://ai.google.dev/gemini-api/docs/pricing
    notes: Prompts over 200k tokens are billed at the higher rates for the whole request.

  google:gemini-2.5-flash:
    input_per_mtok_usd: 0.30
    output_per_mtok_usd: 2.50
    cached_read_per_mtok_usd: 0.03
    source: https://ai.google.dev/gemini-api/docs/pricing
    notes: Text, image and video input; audio input is billed higher and is not modelled.

  google:gemini-2.5-flash-lite:
    input_per_mtok_usd: 0.10
    output_per_mtok_usd: 0.40
    cached_read_per_mtok_usd: 0.01
    source: https://ai.google.dev/gemini-api/docs/pricing
    notes: Text, image and video input; audio input is billed higher and is not modelled.

  google:gemini-2.0-flash:
    input_per_mtok_usd: 0.10
    output_per_mtok_usd: 0.40
    cached_read_per_mtok_usd: 0.025
    source: https://ai.google.dev/gemini-api/docs/pricing
    notes: Text, image and video input; audio input is billed higher and is not modelled.

  # Local models cost nothing per token: an explicit zero, never an accidental one.
  "ollama:*":
    input_per_mtok_usd: 0
    output_per_mtok_usd: 0
    cached_read_per_mtok_usd: 0
    cache_write_5m_per_mtok_usd: 0
    cache_write_1h_per_mtok_usd: 0
    notes: Models served by a local Ollama; hardware and power are not priced.
`;

let cached: PriceTable | undefined;

/**
 * The bundled default price table (parsed once, frozen). Its `pricing_version` changes
 * whenever a price in it changes.
 */
export function defaultPriceTable(): PriceTable {
  cached ??= parsePriceTable(DEFAULT_PRICE_TABLE_YAML, { origin: 'default price table' });
  return cached;
}
