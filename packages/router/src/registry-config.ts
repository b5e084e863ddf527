import { AdapterCapabilitiesSchema, parseModelId } from '@yourtool/core';
import { z } from 'zod';
import { RouterConfigError } from './errors.js';
import { ENV_NAME, secretsInValue, shownType } from './secrets.js';
import { parseYamlDocument } from './yaml.js';

/** One adapter instance of the registry (`adapters:` in models.yaml, contract §7.1). */
export const AdapterEntrySchema = z.strictObject({
  /** Which adapter implementation (`anthropic`, `openai`, `openrouter`, `ollama`, ...). */
  type: z.string().min(1),
  /**
   * Environment variable holding the API key (preferred over `api_key`): a name of letters,
   * digits and `_`. A value that is not one (often the key itself, put in the wrong field) is
   * refused without being quoted.
   */
  api_key_env: z
    .string()
    .regex(
      ENV_NAME,
      'must name an environment variable (letters, digits and "_", e.g. ANTHROPIC_API_KEY); the value given is not one and is not shown, in case it is the key itself',
    )
    .optional(),
  /** The API key itself (discouraged: it sits in a config file in plain text). */
  api_key: z.string().min(1).optional(),
  base_url: z.string().url().optional(),
  timeout_seconds: z.number().positive().optional(),
  /** Longest silence between two stream chunks before the call fails as `network` (default 60). */
  idle_timeout_seconds: z.number().positive().optional(),
  max_retries: z.number().int().nonnegative().optional(),
  extra_headers: z.record(z.string(), z.string()).optional(),
  /**
   * Adapter-specific options, passed to the adapter as `config.options`. A string `provider`
   * here is the provider key the entry serves (see {@link providerOf}).
   */
  options: z.record(z.string(), z.unknown()).optional(),
});
/** An adapter entry. */
export type AdapterEntry = z.output<typeof AdapterEntrySchema>;

/** One model of the registry (`models:` in models.yaml). */
export const ModelEntrySchema = z.strictObject({
  /** Key of the adapter entry that serves it. */
  adapter: z.string().min(1),
  /** The model name the adapter sends to the provider. */
  wire_name: z.string().min(1),
  /** Capability tier (`fast`, `balanced`, `deep`, ...), for rules and delegation. */
  tier: z.string().min(1).optional(),
  /** Whether work may be delegated to this model. */
  can_delegate: z.boolean().default(false),
  /** Short names that resolve to the canonical id. */
  aliases: z.array(z.string().min(1)).default([]),
  /** Human name for messages, e.g. "Claude Haiku 4.5". */
  display_name: z.string().min(1).optional(),
  /** Overrides of the adapter's declared capabilities for this model. */
  capabilities: AdapterCapabilitiesSchema.partial().optional(),
});
/** A model entry. */
export type ModelEntry = z.output<typeof ModelEntrySchema>;

/** The whole models.yaml document. */
export const RegistryConfigSchema = z.strictObject({
  adapters: z.record(z.string(), AdapterEntrySchema),
  models: z.record(z.string(), ModelEntrySchema),
});
/** A registry document after validation. */
export type RegistryConfig = z.output<typeof RegistryConfigSchema>;

/**
 * The provider key an adapter entry serves: its `options.provider` when it names one (a
 * configurable adapter such as `@yourtool/openai-compatible`'s, serving `together:` models under
 * `type: openai-compatible`), else its `type`. Model ids of the entry must use that key.
 */
export function providerOf(entry: AdapterEntry): string {
  const declared = entry.options?.provider;
  return typeof declared === 'string' && declared !== '' ? declared : entry.type;
}

/** Parses and validates a models.yaml document (text or already-parsed value). */
export function parseRegistryConfig(input: string | unknown, source = '<inline>'): RegistryConfig {
  const config = parseYamlDocument(RegistryConfigSchema, input, source);
  const issues: Array<{ path: string; message: string }> = [];
  const names = new Map<string, string>();
  for (const [id, model] of Object.entries(config.models)) {
    const at = `models["${id}"]`;
    let provider: string | null = null;
    try {
      provider = parseModelId(id).provider;
    } catch (error) {
      issues.push({ path: at, message: (error as Error).message });
    }
    const adapter = config.adapters[model.adapter];
    if (!adapter) {
      issues.push({ path: `${at}.adapter`, message: `no adapter "${model.adapter}" in adapters` });
    } else if (provider !== null && provider !== providerOf(adapter)) {
      const serves =
        providerOf(adapter) === adapter.type
          ? `of type ${shownType(adapter.type)}`
          : `serving provider "${providerOf(adapter)}" (options.provider)`;
      issues.push({
        path: `${at}.adapter`,
        message: `model provider "${provider}" does not match adapter "${model.adapter}" ${serves}`,
      });
    }
    for (const name of [id, ...model.aliases]) {
      const owner = names.get(name);
      if (owner && owner !== id) {
        issues.push({ path: `${at}.aliases`, message: `"${name}" already names ${owner}` });
      }
      names.set(name, id);
    }
  }
  if (issues.length > 0)
    throw new RouterConfigError(source, issues, { secrets: secretsInValue(config) });
  return config;
}
