import { type FSWatcher, readFileSync, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { type Logger, silentLogger } from '@yourtool/core';
import { z } from 'zod';
import { RouterConfigError } from './errors.js';
import { compileMessagePattern } from './message-pattern.js';
import { parseYamlDocument } from './yaml.js';

/** What a rule can match on. Every field given must hold. */
export const RuleConditionSchema = z
  .strictObject({
    /** The history holds images. */
    needs_images: z.boolean().optional(),
    /** The turn offers tools or the history holds tool calls. */
    needs_tools: z.boolean().optional(),
    /** The turn asks for thinking. */
    needs_thinking: z.boolean().optional(),
    /** The turn asks for structured output. */
    needs_structured_output: z.boolean().optional(),
    /** Estimated input tokens at least this many. */
    min_estimated_tokens: z.number().int().nonnegative().optional(),
    /** Estimated input tokens at most this many. */
    max_estimated_tokens: z.number().int().nonnegative().optional(),
    /** The tier the turn asks for. */
    tier: z.string().min(1).optional(),
    /** The session's workspace is this path or below it. */
    workspace: z.string().min(1).optional(),
    /**
     * A regular expression the latest user text matches: JavaScript syntax, case-insensitive by
     * default. Inline flags at its start as other engines write them are read: `(?i)`, `(?s)`,
     * `(?m)`, combined (`(?is)`) or cleared (`(?-i)` makes it case-sensitive).
     */
    message_matches: z.string().min(1).optional(),
    /** Flags for `message_matches` (`"s"`, `"-i"` for case-sensitive, ...), as an alternative to inline ones. */
    message_flags: z
      .string()
      .regex(/^[a-z]*(-[a-z]+)?$/, 'flags such as "s" or "-i"')
      .optional(),
  })
  .superRefine((when, ctx) => {
    if (when.message_matches === undefined) return;
    const compiled = compileMessagePattern(when.message_matches, when.message_flags);
    if (!compiled.ok)
      ctx.addIssue({ code: 'custom', path: ['message_matches'], message: compiled.reason });
  });
/** A rule condition. */
export type RuleCondition = z.output<typeof RuleConditionSchema>;

/** A configured routing rule: when its condition holds, use a model or the models of a tier. */
export const RoutingRuleSchema = z
  .strictObject({
    name: z.string().min(1),
    when: RuleConditionSchema,
    /** A model id or alias. */
    use: z.string().min(1).optional(),
    /** A tier: its models, in registry order. */
    use_tier: z.string().min(1).optional(),
    /**
     * Refuse rather than fall through: when the rule matches, the turn goes to one of its models
     * (or its `fallbacks`) or fails with `StrictRuleError` (the privacy switch, decision 0092).
     */
    strict: z.boolean().default(false),
    /**
     * Models (ids or aliases) to try after the rule's own, in order: while routing when those
     * cannot take the turn, and within a turn when the chosen one fails (decision 0090).
     */
    fallbacks: z.array(z.string().min(1)).optional(),
  })
  .refine((rule) => (rule.use === undefined) !== (rule.use_tier === undefined), {
    message: 'a rule needs exactly one of "use" or "use_tier"',
  });
/** A routing rule. */
export type RoutingRule = z.output<typeof RoutingRuleSchema>;

/** The routing.yaml document. */
export const RoutingConfigSchema = z.strictObject({
  /** Model (id or alias) used when nothing else decides. */
  global_default: z.string().min(1),
  /** Defaults per workspace path (the longest matching path wins). */
  workspaces: z
    .array(z.strictObject({ path: z.string().min(1), default: z.string().min(1) }))
    .default([]),
  rules: z.array(RoutingRuleSchema).default([]),
  /**
   * Per model (key: id or alias), the models to try next, in order, when it fails within a turn
   * (LiteLLM-style; decision 0090).
   */
  fallbacks: z.record(z.string(), z.array(z.string().min(1))).default({}),
  pattern: z
    .strictObject({ min_confidence: z.number().min(0).max(1).default(0.7) })
    .default({ min_confidence: 0.7 }),
});
/** A routing document after validation. */
export type RoutingConfig = z.output<typeof RoutingConfigSchema>;

/** Parses and validates a routing.yaml document; throws {@link RouterConfigError} naming paths. */
export function parseRoutingConfig(input: string | unknown, source = '<inline>'): RoutingConfig {
  return parseYamlDocument(RoutingConfigSchema, input, source);
}

/** Options of {@link watchRoutingConfig}. */
export interface WatchRoutingConfigOptions {
  /** Extra validation (e.g. that every model name resolves); throw to refuse a file. */
  validate?: (config: RoutingConfig) => void;
  /** Called with each newly loaded configuration. */
  onReload?: (config: RoutingConfig) => void;
  /** Called when a changed file is refused; the last good configuration stays. */
  onError?: (error: RouterConfigError) => void;
  /** Quiet time after a change before the file is re-read. Default 50 ms. */
  debounceMs?: number;
  logger?: Logger;
}

/** A routing configuration kept in step with its file. */
export interface RoutingConfigWatcher {
  /** The last configuration that loaded. */
  current(): RoutingConfig;
  /** Why the latest change was refused, or null if it loaded. */
  readonly lastError: RouterConfigError | null;
  /** Re-reads the file now; returns the configuration in force afterwards. */
  reload(): RoutingConfig;
  /** Stops watching. */
  close(): void;
}

/**
 * Loads routing.yaml and reloads it whenever it changes (editors that replace the file are
 * handled: the directory is watched). A changed file that does not parse or validate is refused:
 * the last good configuration stays in force, and `onError` and a WARN say why. The first load
 * must succeed.
 */
export function watchRoutingConfig(
  path: string,
  options: WatchRoutingConfigOptions = {},
): RoutingConfigWatcher {
  const file = resolve(path);
  const logger = options.logger ?? silentLogger;
  const load = (): RoutingConfig => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new RouterConfigError(file, [
        { path: '$', message: `cannot read: ${(error as Error).message}` },
      ]);
    }
    const config = parseRoutingConfig(text, file);
    try {
      options.validate?.(config);
    } catch (error) {
      if (error instanceof RouterConfigError) throw error;
      throw new RouterConfigError(file, [{ path: '$', message: (error as Error).message }]);
    }
    return config;
  };

  let current = load();
  let lastError: RouterConfigError | null = null;
  let timer: NodeJS.Timeout | undefined;
  let lastText = readFileSync(file, 'utf8');

  const reload = (): RoutingConfig => {
    try {
      const text = readFileSync(file, 'utf8');
      if (text === lastText && lastError === null) return current;
      lastText = text;
      current = load();
      lastError = null;
      options.onReload?.(current);
      logger.info?.({ event: 'routing_config_reloaded', file }, 'routing configuration reloaded');
    } catch (error) {
      lastError =
        error instanceof RouterConfigError
          ? error
          : new RouterConfigError(file, [{ path: '$', message: (error as Error).message }]);
      logger.warn(
        { event: 'routing_config_refused', file, issues: lastError.issues },
        `kept the last good routing configuration: ${lastError.message}`,
      );
      options.onError?.(lastError);
    }
    return current;
  };

  const watcher: FSWatcher = watch(dirname(file), (_event, name) => {
    if (name !== null && name !== basename(file)) return;
    clearTimeout(timer);
    timer = setTimeout(reload, options.debounceMs ?? 50);
  });
  watcher.unref();

  return {
    current: () => current,
    get lastError() {
      return lastError;
    },
    reload,
    close: () => {
      clearTimeout(timer);
      watcher.close();
    },
  };
}
