import {
  HarmBlockMethod,
  HarmBlockThreshold,
  HarmCategory,
  type SafetySetting,
} from '@google/genai';
import { z } from 'zod';
import type { GoogleThinkingOption } from './codec/request.js';

/**
 * How thinking is asked for, in the config (`options.thinking`) and per call
 * (`providerOptions.google.thinking`): `"on"`, `"off"`, `{ budget_tokens }` (Gemini 2.5) or
 * `{ level }` (Gemini 3: `minimal`, `low`, `medium`, `high`).
 */
export const GoogleThinkingSchema: z.ZodType<GoogleThinkingOption, GoogleThinkingOption> = z.union(
  [
    z.enum(['on', 'off']),
    z.strictObject({ budget_tokens: z.number().int().min(0) }),
    z.strictObject({ level: z.enum(['minimal', 'low', 'medium', 'high']) }),
  ],
  {
    error:
      'expected "on", "off", { budget_tokens } with a whole number of tokens, or { level } with minimal, low, medium or high',
  },
);

/** Gemini `safetySettings`, each a category and a threshold the SDK knows (sent as they are). */
export const GoogleSafetySettingsSchema: z.ZodType<SafetySetting[], SafetySetting[]> = z.array(
  z.strictObject({
    category: z.enum(HarmCategory),
    threshold: z.enum(HarmBlockThreshold),
    method: z.enum(HarmBlockMethod).optional(),
  }),
);

/**
 * The adapter's `options` in its config (snake_case, as in models.yaml), checked once at
 * construction; an unknown key or a wrong type (`vertexai: "false"`) is an
 * `AdapterOptionError` naming it. Parsed to camelCase, the names the per-call options use.
 */
export const GoogleConfigOptionsSchema = z
  .strictObject({
    /** Use Vertex AI instead of the Gemini API. Default false. */
    vertexai: z.boolean().optional(),
    /** Google Cloud project (Vertex AI). */
    project: z.string().min(1).optional(),
    /** Google Cloud location, e.g. `us-central1` or `global` (Vertex AI). */
    location: z.string().min(1).optional(),
    /** API version the SDK calls (`v1beta` by default for the Gemini API). */
    api_version: z.string().min(1).optional(),
    /** Default thinking (per call: `providerOptions.google.thinking`). */
    thinking: GoogleThinkingSchema.optional(),
    /** Default safety settings, sent as they are. */
    safety_settings: GoogleSafetySettingsSchema.optional(),
  })
  .transform((o) => ({
    vertexai: o.vertexai,
    project: o.project,
    location: o.location,
    apiVersion: o.api_version,
    thinking: o.thinking,
    safetySettings: o.safety_settings,
  }));

/**
 * Google options read from `AdapterConfig.options` (defaults for every call). With `vertexai:
 * true` the same SDK talks to Vertex AI: `project` and `location` (or `GOOGLE_CLOUD_PROJECT` /
 * `GOOGLE_CLOUD_LOCATION`) select it and Google Cloud credentials authenticate (Application
 * Default Credentials), or an express-mode API key in `api_key`.
 */
export type GoogleConfigOptions = z.input<typeof GoogleConfigOptionsSchema>;

/** The config options once parsed (camelCase). */
export type GoogleDefaults = z.output<typeof GoogleConfigOptionsSchema>;

/**
 * Whether the SDK will talk to Vertex AI: `options.vertexai`, else the SDK's environment
 * variable `GOOGLE_GENAI_USE_VERTEXAI=true`.
 */
export function googleUsesVertex(defaults: Pick<GoogleDefaults, 'vertexai'>): boolean {
  if (defaults.vertexai !== undefined) return defaults.vertexai;
  return process.env.GOOGLE_GENAI_USE_VERTEXAI?.trim().toLowerCase() === 'true';
}

/**
 * This call's options (`providerOptions.google`, camelCase), checked on every call; an unknown
 * key or a wrong type is an `InvalidRequestError` naming it.
 */
export const GoogleCallOptionsSchema = z.strictObject({
  /** Thinking for this call (overrides `options.thinking`). */
  thinking: GoogleThinkingSchema.optional(),
  /** Safety settings for this call (override `options.safety_settings`). */
  safetySettings: GoogleSafetySettingsSchema.optional(),
});

/** Per-call options of the adapter (`providerOptions.google`). */
export type GoogleCallOptions = z.input<typeof GoogleCallOptionsSchema>;
