import type { ProviderAdapter } from '@yourtool/core';
import { describeNetworkErrorCode, networkErrorCode, redactSecrets } from '@yourtool/core/adapter';
import { ModelNotConfiguredError } from './errors.js';
import type { ModelRegistry } from './registry.js';
import type { RouterContext } from './router-context.js';

/** What {@link Router.prepare} did. */
export interface PrepareReport {
  /** Canonical ids whose capabilities were detected by this call. */
  detected: string[];
  /** Models whose detection failed (or was aborted), with the error; nothing is thrown. */
  failed: Array<{ model: string; error: Error }>;
}

/** Options of {@link Router.prepare}. */
export interface PrepareOptions {
  /** Stops waiting: models not detected yet are reported as failed with the abort reason. */
  signal?: AbortSignal;
  /** Only these models (ids or aliases). Default: every registered, configured model. */
  models?: readonly string[];
}

/** A model whose adapter has yet to detect its capabilities. */
interface PendingDetection {
  id: string;
  adapter: ProviderAdapter;
}

const abortError = (signal: AbortSignal): Error =>
  signal.reason instanceof Error
    ? signal.reason
    : Object.assign(new Error('prepare() was aborted'), { name: 'AbortError' });

/** A failed detection for people: its message, and the transport failure under it when there is one. */
function describeFailure(error: Error): string {
  const code = networkErrorCode(error);
  if (code === undefined) return error.message;
  return `${error.message} (${describeNetworkErrorCode(code)}, ${code})`;
}

/**
 * The canonical ids to prepare: the given names (each that does not resolve or is not
 * configured goes to `report.failed`), or every ready model.
 */
function modelsToPrepare(
  registry: ModelRegistry,
  models: readonly string[] | undefined,
  report: PrepareReport,
): string[] {
  const ids: string[] = [];
  if (!models) {
    for (const model of registry.models()) {
      if (model.status === 'ready') ids.push(model.id);
    }
    return ids;
  }
  for (const name of models) {
    try {
      const model = registry.get(name);
      if (model.status === 'not_configured') {
        throw new ModelNotConfiguredError(model.id, model.not_configured_reason ?? 'no adapter');
      }
      if (!ids.includes(model.id)) ids.push(model.id);
    } catch (error) {
      report.failed.push({ model: name, error: error as Error });
    }
  }
  return ids;
}

/**
 * Runs the pending detections concurrently (one detection per model however many `prepare()`
 * calls wait for it); an abort of `signal` settles every one still running as failed.
 */
async function detectAll(
  context: RouterContext,
  pending: readonly PendingDetection[],
  signal: AbortSignal | undefined,
): Promise<PromiseSettledResult<void>[]> {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    if (!signal) return;
    onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  // the race below may reject after every detection settled: never leave it unhandled
  aborted.catch(() => undefined);
  try {
    return await Promise.allSettled(
      pending.map(({ id, adapter }) => {
        let detection = context.detecting.get(id);
        if (!detection) {
          detection = (async () => {
            await adapter.detectCapabilities?.(id, signal ? { signal } : {});
          })().finally(() => context.detecting.delete(id));
          context.detecting.set(id, detection);
        }
        return Promise.race([detection, aborted]);
      }),
    );
  } finally {
    if (signal && onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/** Reports each outcome, and remembers each failure so a refusal can name its cause. */
function recordOutcomes(
  context: RouterContext,
  pending: readonly PendingDetection[],
  outcomes: readonly PromiseSettledResult<void>[],
  report: PrepareReport,
): void {
  outcomes.forEach((outcome, i) => {
    const id = (pending[i] as PendingDetection).id;
    if (outcome.status === 'fulfilled') {
      report.detected.push(id);
      context.detectionFailures.delete(id);
    } else {
      const error =
        outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason));
      report.failed.push({ model: id, error });
      context.detectionFailures.set(id, {
        message: redactSecrets(describeFailure(error)),
        at: new Date().toISOString(),
      });
    }
  });
}

/**
 * Detects the capabilities of the given models (default: every ready one) whose adapter has
 * `detectCapabilities` and has not detected them yet; failures are reported, never thrown.
 */
export async function prepareCapabilities(
  context: RouterContext,
  options: PrepareOptions,
): Promise<PrepareReport> {
  const { signal } = options;
  const report: PrepareReport = { detected: [], failed: [] };
  const ids = modelsToPrepare(context.registry, options.models, report);
  const pending = ids.flatMap((id) => {
    const adapter = context.registry.adapterFor(id);
    if (!adapter.detectCapabilities || adapter.capabilitiesDetected?.(id) !== false) return [];
    return [{ id, adapter }];
  });
  if (pending.length === 0) return report;
  if (signal?.aborted) {
    const error = abortError(signal);
    for (const { id } of pending) report.failed.push({ model: id, error });
    return report;
  }
  recordOutcomes(context, pending, await detectAll(context, pending, signal), report);
  if (report.failed.length > 0) {
    context.logger.warn(
      {
        event: 'capability_detection_failed',
        models: report.failed.map((f) => ({ model: f.model, error: f.error.message })),
      },
      'capabilities of some models could not be detected',
    );
  }
  return report;
}
