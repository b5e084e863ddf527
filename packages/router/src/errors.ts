import type { RouteTraceEntry } from '@yourtool/core';
import { YourtoolError } from '@yourtool/core';
import { redactConfigText } from './secrets.js';

/** Options of {@link RouterConfigError}. */
export interface RouterConfigErrorOptions {
  /** Secret values of the document (its `api_key`s), removed wherever they appear. */
  secrets?: readonly string[];
}

/**
 * A registry or routing file is invalid. `issues` name each offending path.
 *
 * It never carries a secret: the message, `issues` and `source` are redacted (the document's
 * known secret values, whatever follows a secret key such as `api_key:` on a quoted line, and
 * anything shaped like a provider key), and the YAML parser's own error, whose code frame
 * quotes the document, is not kept as `cause`.
 */
export class RouterConfigError extends YourtoolError {
  /** The file (or `<inline>`). */
  readonly source: string;
  /** Every problem found, with its path in the document. */
  readonly issues: Array<{ path: string; message: string }>;

  /** An error naming `source` and every issue (redacted). */
  constructor(
    source: string,
    issues: Array<{ path: string; message: string }>,
    options: RouterConfigErrorOptions = {},
  ) {
    const secrets = options.secrets ?? [];
    const redactedSource = redactConfigText(source, secrets);
    const redacted = issues.map((issue) => ({
      path: redactConfigText(issue.path, secrets),
      message: redactConfigText(issue.message, secrets),
    }));
    super(
      'router_config_invalid',
      `${redactedSource} is invalid: ${redacted.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    );
    this.source = redactedSource;
    this.issues = redacted;
  }
}

/** A model's adapter could not be set up (usually a missing API key). */
export class ModelNotConfiguredError extends YourtoolError {
  /** Canonical model id. */
  readonly model: string;

  constructor(model: string, reason: string) {
    super('not_configured', `${model} is not configured: ${reason}`);
    this.model = model;
  }
}

/** No candidate of the routing chain could take the turn. `trace` says why each was rejected. */
export class NoRouteError extends YourtoolError {
  /** Every candidate considered, with the reason it was rejected. */
  readonly trace: RouteTraceEntry[];

  /**
   * An error listing every rejected candidate of `trace`. Subclasses pass their own `code` and
   * the start of the message (`no model can take this turn` by default).
   */
  constructor(trace: RouteTraceEntry[], options: { code?: string; headline?: string } = {}) {
    const rejected = trace
      .filter((t) => t.model !== null && !t.accepted)
      .map((t) => `${t.model} (${t.reason})`)
      .join('; ');
    super(
      options.code ?? 'no_route',
      `${options.headline ?? 'no model can take this turn'}${rejected ? `: ${rejected}` : ''}`,
    );
    this.trace = trace;
  }
}

/**
 * A rule with `strict: true` matched the turn but none of its models (nor its own `fallbacks`)
 * could take it. The turn is refused instead of going to any other model: strict rules are the
 * privacy switch (decision 0092). A {@link NoRouteError}, so existing handlers still catch it.
 */
export class StrictRuleError extends NoRouteError {
  /** Name of the strict rule. */
  readonly rule: string;

  /** An error naming the rule and every rejected candidate of `trace`. */
  constructor(rule: string, trace: RouteTraceEntry[]) {
    super(trace, {
      code: 'strict_rule',
      headline: `strict rule "${rule}" matched and none of its models can take this turn`,
    });
    this.rule = rule;
  }
}

/** The routing step of an explicit choice. */
export type ExplicitChoicePolicy = 'PER_MESSAGE_OVERRIDE' | 'MANUAL_STICKY';

/**
 * An explicit choice (`@model` in the message, or the session's `/model`) cannot be honoured:
 * unknown name, not configured, unavailable, unable to take this history, capabilities not
 * detected yet, or refused by a matching strict rule. Thrown unless the turn opts into falling
 * through (decision 0091).
 */
export class ChoiceUnavailableError extends YourtoolError {
  /** The choice as given. */
  readonly choice: string;
  /** Which explicit step it came from. */
  readonly policy: ExplicitChoicePolicy;
  /** Why it cannot be used. */
  readonly reason: string;
  /** Known names closest to the choice, best first; empty when the name resolved. */
  readonly suggestions: string[];
  /** The routing chain up to the refused choice. */
  readonly trace: RouteTraceEntry[];

  /** An error naming the choice, the reason and any close matches. */
  constructor(fields: {
    choice: string;
    policy: ExplicitChoicePolicy;
    reason: string;
    suggestions: string[];
    trace: RouteTraceEntry[];
    /** For subclasses: their own code and message. */
    code?: string;
    message?: string;
  }) {
    const label =
      fields.policy === 'PER_MESSAGE_OVERRIDE' ? `@${fields.choice}` : `/model ${fields.choice}`;
    const hint =
      fields.policy === 'PER_MESSAGE_OVERRIDE'
        ? 'send with fallthrough to let routing choose'
        : 'choose another with /model, or send with fallthrough to let routing choose';
    super(
      fields.code ?? 'choice_unavailable',
      fields.message ?? `${label} cannot be used: ${fields.reason} (${hint})`,
    );
    this.choice = fields.choice;
    this.policy = fields.policy;
    this.reason = fields.reason;
    this.suggestions = [...fields.suggestions];
    this.trace = fields.trace;
  }
}

/**
 * A model id or alias the registry does not know, with the closest known names. The one error
 * for an unknown name however it was chosen (`/model`, `@model`, `registry.resolve`); it is also
 * a {@link ChoiceUnavailableError}, so code catching that keeps working.
 */
export class UnknownModelError extends ChoiceUnavailableError {
  /** What was asked for. */
  readonly requested: string;

  constructor(
    requested: string,
    suggestions: string[],
    context: { policy?: ExplicitChoicePolicy; trace?: RouteTraceEntry[] } = {},
  ) {
    const named = `unknown model "${requested}"${
      suggestions.length > 0 ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}?` : ''
    }`;
    super({
      choice: requested,
      policy: context.policy ?? 'MANUAL_STICKY',
      reason: named,
      suggestions,
      trace: context.trace ?? [],
      code: 'unknown_model',
      // chosen in a turn: the choice's own wording and hint; asked of the registry: the name alone
      ...(context.policy ? {} : { message: named }),
    });
    this.requested = requested;
  }
}

/** A manual swap the history cannot survive; the active model stays as it was. */
export class SwapRefusedError extends YourtoolError {
  /** The model asked for. */
  readonly model: string;
  /** Every reason the model cannot take the history. */
  readonly reasons: string[];

  constructor(model: string, message: string, reasons: string[]) {
    super('swap_refused', message);
    this.model = model;
    this.reasons = reasons;
  }
}
