import type { RouteTraceEntry } from '@yourtool/core';
import { YourtoolError } from '@yourtool/core';

/** A registry or routing file is invalid. `issues` name each offending path. */
export class RouterConfigError extends YourtoolError {
  /** The file (or `<inline>`). */
  readonly source: string;
  /** Every problem found, with its path in the document. */
  readonly issues: Array<{ path: string; message: string }>;

  constructor(source: string, issues: Array<{ path: string; message: string }>) {
    super(
      'router_config_invalid',
      `${source} is invalid: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    );
    this.source = source;
    this.issues = issues;
  }
}

/** A model id or alias the registry does not know. Lists the closest known names. */
export class UnknownModelError extends YourtoolError {
  /** What was asked for. */
  readonly requested: string;
  /** Known ids and aliases closest to it, best first. */
  readonly suggestions: string[];

  constructor(requested: string, suggestions: string[]) {
    super(
      'unknown_model',
      `unknown model "${requested}"${suggestions.length > 0 ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}?` : ''}`,
    );
    this.requested = requested;
    this.suggestions = suggestions;
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

  constructor(trace: RouteTraceEntry[]) {
    const rejected = trace
      .filter((t) => t.model !== null)
      .map((t) => `${t.model} (${t.reason})`)
      .join('; ');
    super('no_route', `no model can take this turn${rejected ? `: ${rejected}` : ''}`);
    this.trace = trace;
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
