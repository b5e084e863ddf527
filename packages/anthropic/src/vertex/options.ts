import { builtSchema, lazySchema } from '@yourtool/core/adapter';
import type { z } from 'zod';
import { AnthropicThinkingSchema } from '../options.js';

/** The `anthropic_version` Vertex AI takes, in the request body (not a header). */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/**
 * The Claude on Vertex AI adapter's `options` in its config (snake_case, as in models.yaml),
 * checked once at construction; an unknown key or a wrong type is an `AdapterOptionError`
 * naming it. Parsed to camelCase.
 */
export const VertexAnthropicConfigOptionsSchema = lazySchema(
  (z) =>
    z
      .strictObject({
        /** Google Cloud project (else `ANTHROPIC_VERTEX_PROJECT_ID`, `GOOGLE_CLOUD_PROJECT`, the credentials file). */
        project: z.string().trim().min(1).optional(),
        /** Vertex AI region: `us-east5`, `europe-west1`, `global`, ... (else `CLOUD_ML_REGION`). */
        region: z.string().trim().min(1).optional(),
        /**
         * Take credentials from the metadata server (Compute Engine, GKE, Cloud Run) when no
         * credentials file is found. Off by default: it cannot be checked without a network call.
         */
        metadata_credentials: z.boolean().optional(),
        /** Default extended thinking (per call: `providerOptions["vertex-anthropic"].thinking`). */
        thinking: builtSchema(AnthropicThinkingSchema).optional(),
        /** Cache breakpoints on the system prompt and tools. Default true. */
        prompt_caching: z.boolean().optional(),
      })
      .transform((o) => ({
        project: o.project,
        region: o.region,
        metadataCredentials: o.metadata_credentials === true,
        thinking: o.thinking,
        promptCaching: o.prompt_caching,
        anthropicVersion: VERTEX_ANTHROPIC_VERSION,
      })),
  // what `{}` parses to: options nobody set are read without zod (decision 0198)
  {
    emptyOutput: () => ({
      project: undefined,
      region: undefined,
      metadataCredentials: false,
      thinking: undefined,
      promptCaching: undefined,
      anthropicVersion: VERTEX_ANTHROPIC_VERSION,
    }),
  },
);

/** Options read from `AdapterConfig.options` of the `vertex-anthropic` adapter. */
export type VertexAnthropicConfigOptions = z.input<typeof VertexAnthropicConfigOptionsSchema>;

/** The config options once parsed (camelCase). */
export type VertexAnthropicDefaults = z.output<typeof VertexAnthropicConfigOptionsSchema>;
