import { parsePriceTable } from './read-table.js';
import type { PriceTable } from './table.js';

/**
 * The bundled price table, in the YAML format users write overrides in. It is inlined here
 * (not read from a file at run time) so it works the same from the ESM and CommonJS builds and
 * from bundlers.
 *
 * Public list prices for standard (not batch, not priority, not regional) API usage. Adding a
 * model keeps `pricing_version`; changing a price changes it (decision 0114).
 */
export const DEFAULT_PRICE_TABLE_YAML = `# @yourtool/pricing default price table. USD per million tokens.
pricing_version: "2026-11-22"
effective_date: 2026-11-22
source: Public list prices of each provider, read 2026-11-22, OpenRouter's read 2026-11-25, Bedrock's read 2026-11-27 (per-model sources below)
notes: >-
  Standard API usage only: batch discounts, priority tiers, regional or data-residency uplifts
  and tool fees (web search, code execution) are not modelled, except Bedrock's, whose model ids
  name the kind of endpoint (global, geographic or in-Region) and are priced each as billed. input_tokens are the uncached
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

  # OpenRouter (read 2026-11-25): OpenRouter bills a model at its upstream's list price (its fee
  # is charged on credit purchases, not per token), so these are the upstream list prices, which
  # OpenRouter's model pages show. Replies name the model that answered by its permaslug
  # (anthropic/claude-4.6-sonnet-20260217); those names share the entry (YAML alias), so a call
  # is priced by the served model (decision 0136). openrouter:openrouter/auto has no price of its
  # own: it is priced as the model the auto router chose, when this table knows that model.
  # OpenRouter's own figure (usage.cost) is kept as provider_cost_usd and compared with ours.
  openrouter:anthropic/claude-opus-4.7: &openrouter-claude-opus-4-7
    input_per_mtok_usd: 5.00
    output_per_mtok_usd: 25.00
    cached_read_per_mtok_usd: 0.50
    cache_write_5m_per_mtok_usd: 6.25
    cache_write_1h_per_mtok_usd: 10.00
    source: https://openrouter.ai/anthropic/claude-opus-4.7 (Anthropic's list price, https://platform.claude.com/docs/en/about-claude/pricing)
    notes: Also served through Amazon Bedrock and Google Vertex at the same list price.
  openrouter:anthropic/claude-4.7-opus-20260416: *openrouter-claude-opus-4-7

  openrouter:anthropic/claude-sonnet-4.6: &openrouter-claude-sonnet-4-6
    input_per_mtok_usd: 3.00
    output_per_mtok_usd: 15.00
    cached_read_per_mtok_usd: 0.30
    cache_write_5m_per_mtok_usd: 3.75
    cache_write_1h_per_mtok_usd: 6.00
    source: https://openrouter.ai/anthropic/claude-sonnet-4.6 (Anthropic's list price, https://platform.claude.com/docs/en/about-claude/pricing)
    notes: Also served through Amazon Bedrock and Google Vertex at the same list price.
  openrouter:anthropic/claude-4.6-sonnet-20260217: *openrouter-claude-sonnet-4-6

  openrouter:anthropic/claude-haiku-4.5: &openrouter-claude-haiku-4-5
    input_per_mtok_usd: 1.00
    output_per_mtok_usd: 5.00
    cached_read_per_mtok_usd: 0.10
    cache_write_5m_per_mtok_usd: 1.25
    cache_write_1h_per_mtok_usd: 2.00
    source: https://openrouter.ai/anthropic/claude-haiku-4.5 (Anthropic's list price, https://platform.claude.com/docs/en/about-claude/pricing)
    notes: Also served through Amazon Bedrock and Google Vertex at the same list price.
  openrouter:anthropic/claude-4.5-haiku-20251001: *openrouter-claude-haiku-4-5

  openrouter:openai/gpt-5:
    input_per_mtok_usd: 1.25
    output_per_mtok_usd: 10.00
    cached_read_per_mtok_usd: 0.125
    source: https://openrouter.ai/openai/gpt-5 (OpenAI's list price, https://developers.openai.com/api/docs/pricing)
    notes: OpenRouter lists no cache write price for OpenAI models (writes cost nothing).

  openrouter:openai/gpt-5-mini:
    input_per_mtok_usd: 0.25
    output_per_mtok_usd: 2.00
    cached_read_per_mtok_usd: 0.025
    source: https://openrouter.ai/openai/gpt-5-mini (OpenAI's list price, https://developers.openai.com/api/docs/pricing)
    notes: OpenRouter lists no cache write price for OpenAI models (writes cost nothing).

  openrouter:openai/gpt-4.1:
    input_per_mtok_usd: 2.00
    output_per_mtok_usd: 8.00
    cached_read_per_mtok_usd: 0.50
    source: https://openrouter.ai/openai/gpt-4.1 (OpenAI's list price, https://developers.openai.com/api/docs/pricing)
    notes: OpenRouter lists no cache write price for OpenAI models (writes cost nothing).

  openrouter:google/gemini-2.5-pro:
    input_per_mtok_usd: 1.25
    output_per_mtok_usd: 10.00
    cached_read_per_mtok_usd: 0.125
    long_context:
      above_input_tokens: 200000
      input_per_mtok_usd: 2.50
      output_per_mtok_usd: 15.00
      cached_read_per_mtok_usd: 0.25
    source: https://openrouter.ai/google/gemini-2.5-pro (Google's list price, https://ai.google.dev/gemini-api/docs/pricing)
    notes: >-
      Prompts over 200k tokens are billed at the higher rates for the whole request. Explicit
      cache writes have no rate here (a call reporting them is unpriced, not guessed).

  openrouter:google/gemini-2.5-flash:
    input_per_mtok_usd: 0.30
    output_per_mtok_usd: 2.50
    cached_read_per_mtok_usd: 0.03
    source: https://openrouter.ai/google/gemini-2.5-flash (Google's list price, https://ai.google.dev/gemini-api/docs/pricing)
    notes: >-
      Text, image and video input; audio input is billed higher and is not modelled. Explicit
      cache writes have no rate here (a call reporting them is unpriced, not guessed).

  # DeepSeek V3 is open-weight: OpenRouter routes it to several hosts, each at its own price.
  # This is DeepSeek's own list price for V3, the price OpenRouter lists for the model; a call
  # served by a dearer host shows up as a provider_cost_mismatch WARN. Pin a host with the
  # adapter's provider preferences and override this entry to price it exactly.
  openrouter:deepseek/deepseek-chat: &openrouter-deepseek-v3
    input_per_mtok_usd: 0.27
    output_per_mtok_usd: 1.10
    cached_read_per_mtok_usd: 0.07
    source: https://openrouter.ai/deepseek/deepseek-chat (DeepSeek's V3 list price, https://api-docs.deepseek.com/quick_start/pricing)
    notes: Several hosts at different prices; this is DeepSeek's own. deepseek-v3 is the same model.
  openrouter:deepseek/deepseek-v3: *openrouter-deepseek-v3
  openrouter:deepseek/deepseek-chat-v3: *openrouter-deepseek-v3

  # Amazon Bedrock (read 2026-11-27, decision 0169): Claude only. Each Bedrock model id is its own
  # canonical id (bedrock:<id>), and the price depends on the kind of id: a global. profile is
  # billed at Anthropic's list price; an in-Region foundation id or a geographic profile (us.,
  # eu., jp., apac.) at 10% more, for Claude Sonnet 4.5 and every later model (Anthropic: "Regional
  # endpoints include a 10% pricing premium over global endpoints"; AWS: geographic is "standard
  # pricing", global "approximately 10% savings", billed by the source Region). Older models
  # (Opus 4.1, Sonnet 4) keep one price. Cache reads and 5-minute writes use
  # Claude's multipliers (0.1x, 1.25x input); 1-hour writes have no Bedrock rate here, so a call
  # reporting them is unpriced. ARNs (application inference profiles, provisioned throughput)
  # name no model and stay unpriced: override them. Llama, Mistral, Nova, gpt-oss and DeepSeek
  # on Bedrock are unpriced until their rates are read from a primary source.
  "bedrock:global.anthropic.claude-sonnet-4-5-20250929-v1:0": &bedrock-claude-sonnet-global
    input_per_mtok_usd: 3.00
    output_per_mtok_usd: 15.00
    cached_read_per_mtok_usd: 0.30
    cache_write_5m_per_mtok_usd: 3.75
    source: https://docs.aws.amazon.com/bedrock/latest/userguide/global-cross-region-inference.html (global profile, Anthropic's list price https://platform.claude.com/docs/en/about-claude/pricing)
    notes: Global cross-Region profile. Claude Sonnet 4.5 and 4.6 share this price.
  "bedrock:global.anthropic.claude-sonnet-4-6": *bedrock-claude-sonnet-global

  "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0": &bedrock-claude-sonnet-regional
    input_per_mtok_usd: 3.30
    output_per_mtok_usd: 16.50
    cached_read_per_mtok_usd: 0.33
    cache_write_5m_per_mtok_usd: 4.125
    source: https://platform.claude.com/docs/en/build-with-claude/claude-on-amazon-bedrock (regional endpoints 10% over global) and https://docs.aws.amazon.com/bedrock/latest/userguide/cross-region-inference.html
    notes: In-Region id or geographic profile, 10% over the global profile; billed by the source Region.
  "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0": *bedrock-claude-sonnet-regional
  "bedrock:eu.anthropic.claude-sonnet-4-5-20250929-v1:0": *bedrock-claude-sonnet-regional
  "bedrock:jp.anthropic.claude-sonnet-4-5-20250929-v1:0": *bedrock-claude-sonnet-regional
  "bedrock:anthropic.claude-sonnet-4-6": *bedrock-claude-sonnet-regional
  "bedrock:us.anthropic.claude-sonnet-4-6": *bedrock-claude-sonnet-regional
  "bedrock:eu.anthropic.claude-sonnet-4-6": *bedrock-claude-sonnet-regional
  "bedrock:jp.anthropic.claude-sonnet-4-6": *bedrock-claude-sonnet-regional

  "bedrock:global.anthropic.claude-haiku-4-5-20251001-v1:0":
    input_per_mtok_usd: 1.00
    output_per_mtok_usd: 5.00
    cached_read_per_mtok_usd: 0.10
    cache_write_5m_per_mtok_usd: 1.25
    source: https://docs.aws.amazon.com/bedrock/latest/userguide/cross-region-inference.html (global profile, Anthropic's list price https://platform.claude.com/docs/en/about-claude/pricing)
    notes: Global cross-Region profile.

  "bedrock:anthropic.claude-haiku-4-5-20251001-v1:0": &bedrock-claude-haiku-regional
    input_per_mtok_usd: 1.10
    output_per_mtok_usd: 5.50
    cached_read_per_mtok_usd: 0.11
    cache_write_5m_per_mtok_usd: 1.375
    source: https://platform.claude.com/docs/en/build-with-claude/claude-on-amazon-bedrock (regional endpoints 10% over global) and https://docs.aws.amazon.com/bedrock/latest/userguide/cross-region-inference.html
    notes: In-Region id or geographic profile, 10% over the global profile; billed by the source Region.
  "bedrock:us.anthropic.claude-haiku-4-5-20251001-v1:0": *bedrock-claude-haiku-regional
  "bedrock:eu.anthropic.claude-haiku-4-5-20251001-v1:0": *bedrock-claude-haiku-regional

  "bedrock:global.anthropic.claude-opus-4-5-20251101-v1:0": &bedrock-claude-opus-global
    input_per_mtok_usd: 5.00
    output_per_mtok_usd: 25.00
    cached_read_per_mtok_usd: 0.50
    cache_write_5m_per_mtok_usd: 6.25
    source: https://docs.aws.amazon.com/bedrock/latest/userguide/cross-region-inference.html (global profile, Anthropic's list price https://platform.claude.com/docs/en/about-claude/pricing)
    notes: Global cross-Region profile. Claude Opus 4.5 and 4.6 share this price.
  "bedrock:global.anthropic.claude-opus-4-6-v1": *bedrock-claude-opus-global

  "bedrock:anthropic.claude-opus-4-5-20251101-v1:0": &bedrock-claude-opus-regional
    input_per_mtok_usd: 5.50
    output_per_mtok_usd: 27.50
    cached_read_per_mtok_usd: 0.55
    cache_write_5m_per_mtok_usd: 6.875
    source: https://platform.claude.com/docs/en/build-with-claude/claude-on-amazon-bedrock (regional endpoints 10% over global) and https://docs.aws.amazon.com/bedrock/latest/userguide/cross-region-inference.html
    notes: In-Region id or geographic profile, 10% over the global profile; billed by the source Region.
  "bedrock:us.anthropic.claude-opus-4-5-20251101-v1:0": *bedrock-claude-opus-regional
  "bedrock:eu.anthropic.claude-opus-4-5-20251101-v1:0": *bedrock-claude-opus-regional
  "bedrock:anthropic.claude-opus-4-6-v1": *bedrock-claude-opus-regional
  "bedrock:us.anthropic.claude-opus-4-6-v1": *bedrock-claude-opus-regional
  "bedrock:eu.anthropic.claude-opus-4-6-v1": *bedrock-claude-opus-regional
  "bedrock:jp.anthropic.claude-opus-4-6-v1": *bedrock-claude-opus-regional
  "bedrock:apac.anthropic.claude-opus-4-6-v1": *bedrock-claude-opus-regional

  # Claude on Google Vertex AI (read 2026-11-27, decision 0179): ids as Vertex spells them
  # (vertex-anthropic:<name>@<date>), at Anthropic's list price, which is the global endpoint's
  # (region: global). From Claude Sonnet 4.5 on, a regional endpoint (us-east5, europe-west1, ...)
  # costs 10% more, but the region is an adapter option, not part of the id: a user of a
  # regional endpoint overrides these entries in a price table of their own (decision 0179).
  "vertex-anthropic:claude-sonnet-4-5@20250929":
    input_per_mtok_usd: 3.00
    output_per_mtok_usd: 15.00
    cached_read_per_mtok_usd: 0.30
    cache_write_5m_per_mtok_usd: 3.75
    source: https://platform.claude.com/docs/en/build-with-claude/claude-on-vertex-ai (global vs regional endpoints) and https://platform.claude.com/docs/en/about-claude/pricing
    notes: Global endpoint; a regional endpoint is 10% more (override it).
  "vertex-anthropic:claude-haiku-4-5@20251001":
    input_per_mtok_usd: 1.00
    output_per_mtok_usd: 5.00
    cached_read_per_mtok_usd: 0.10
    cache_write_5m_per_mtok_usd: 1.25
    source: https://platform.claude.com/docs/en/build-with-claude/claude-on-vertex-ai (global vs regional endpoints) and https://platform.claude.com/docs/en/about-claude/pricing
    notes: Global endpoint; a regional endpoint is 10% more (override it).
  "vertex-anthropic:claude-opus-4-5@20251101":
    input_per_mtok_usd: 5.00
    output_per_mtok_usd: 25.00
    cached_read_per_mtok_usd: 0.50
    cache_write_5m_per_mtok_usd: 6.25
    source: https://platform.claude.com/docs/en/build-with-claude/claude-on-vertex-ai (global vs regional endpoints) and https://platform.claude.com/docs/en/about-claude/pricing
    notes: Global endpoint; a regional endpoint is 10% more (override it).

  # Opus 4.1 predates the global/regional split: one price, a us. profile and no global one.
  "bedrock:us.anthropic.claude-opus-4-1-20250805-v1:0": &bedrock-claude-opus-4-1
    input_per_mtok_usd: 15.00
    output_per_mtok_usd: 75.00
    cached_read_per_mtok_usd: 1.50
    cache_write_5m_per_mtok_usd: 18.75
    source: https://platform.claude.com/docs/en/about-claude/pricing (Opus 4.1, "retired, except on Bedrock and Google Cloud"; older models keep their pricing, https://platform.claude.com/docs/en/build-with-claude/claude-on-amazon-bedrock)
    notes: No global profile; no regional premium (it applies from Claude Sonnet 4.5 on).
  "bedrock:anthropic.claude-opus-4-1-20250805-v1:0": *bedrock-claude-opus-4-1

  # Sonnet 4 predates the split too: one list price in-Region and on its geographic profiles. Its
  # global. profile stays unpriced: AWS calls global profiles about 10% cheaper, Anthropic says
  # models before Sonnet 4.5 keep their pricing, and no page gives that profile's figure.
  "bedrock:anthropic.claude-sonnet-4-20250514-v1:0": &bedrock-claude-sonnet-4
    input_per_mtok_usd: 3.00
    output_per_mtok_usd: 15.00
    cached_read_per_mtok_usd: 0.30
    cache_write_5m_per_mtok_usd: 3.75
    source: https://platform.claude.com/docs/en/about-claude/pricing (Sonnet 4; older models keep their pricing, https://platform.claude.com/docs/en/build-with-claude/claude-on-amazon-bedrock)
    notes: In-Region id or geographic profile; no regional premium (it applies from Claude Sonnet 4.5 on).
  "bedrock:us.anthropic.claude-sonnet-4-20250514-v1:0": *bedrock-claude-sonnet-4
  "bedrock:eu.anthropic.claude-sonnet-4-20250514-v1:0": *bedrock-claude-sonnet-4
  "bedrock:apac.anthropic.claude-sonnet-4-20250514-v1:0": *bedrock-claude-sonnet-4

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
