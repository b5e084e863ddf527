/**
 * Loading `@opentelemetry/api`, an optional peer dependency: once, at first use, with a dynamic
 * `import()` that works from the ESM and the CommonJS build alike. When the package is not
 * installed (or fails to load) the library records nothing and nothing breaks.
 *
 * Only types come from the API at compile time; nothing here is part of the published type
 * declarations, so a project without the API type-checks against core as before.
 */
import type * as OtelApiModule from '@opentelemetry/api';

/** The OpenTelemetry API as loaded. */
export type OtelApi = typeof OtelApiModule;

/** How the API is imported (replaced in tests to simulate a missing package). */
type Importer = () => Promise<unknown>;

const importApi: Importer = () => import('@opentelemetry/api');

let importer: Importer = importApi;
/** The loaded API, `null` when it is absent, `undefined` before the first attempt settles. */
let loaded: OtelApi | null | undefined;
let loading: Promise<OtelApi | null> | undefined;

/** The API's namespace, whichever way the module system handed it over. */
function apiOf(module: unknown): OtelApi | null {
  const candidate = module as (Partial<OtelApi> & { default?: Partial<OtelApi> }) | null;
  const api = candidate?.trace && candidate.metrics ? candidate : candidate?.default;
  return api?.trace && api.metrics && api.context ? (api as OtelApi) : null;
}

/**
 * The OpenTelemetry API: the module once loaded, `null` when it is not installed, or (the first
 * time only) a promise of either. Never rejects.
 */
export function otelApi(): OtelApi | null | Promise<OtelApi | null> {
  if (loaded !== undefined) return loaded;
  loading ??= importer().then(
    (module) => {
      loaded = apiOf(module);
      return loaded;
    },
    () => {
      loaded = null;
      return null;
    },
  );
  return loading;
}

/** Like {@link otelApi}, always as a promise. */
export async function loadOtelApi(): Promise<OtelApi | null> {
  return otelApi();
}

/**
 * Whether message content may be recorded by default: the environment variable the GenAI
 * instrumentations of OpenTelemetry share, `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`
 * (`true` or `1`). Read at each call: a per-call or per-manager option wins over it.
 */
export function captureContentFromEnv(): boolean {
  const value =
    typeof process === 'undefined'
      ? undefined
      : process.env?.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;
  if (!value) return false;
  const normalized = value.trim().toLowerCase();
  return normalized === 'true' || normalized === '1';
}

/**
 * For tests: forgets the loaded API and, when `next` is given, imports with it from now on
 * (e.g. a function that rejects, as a missing package does). Without `next`, the real import.
 * @internal
 */
export function resetOtelApiForTests(next?: Importer): void {
  importer = next ?? importApi;
  loaded = undefined;
  loading = undefined;
}
