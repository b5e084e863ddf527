import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where Claude on Vertex AI finds its project, region and Google credentials, read from the
 * config and the environment only: nothing here makes a network call (the metadata server is
 * used only when opted in, and never probed).
 */

const env = (name: string): string | undefined => {
  const value = process.env[name]?.trim();
  return value ? value : undefined;
};

/** What the adapter was configured with, for {@link vertexSetup}. */
export interface VertexSetupInput {
  /** `options.project`. */
  project?: string | undefined;
  /** `options.region`. */
  region?: string | undefined;
  /** `options.metadata_credentials`. */
  metadataCredentials: boolean;
  /** Whether a credential was handed over directly (an access token or an auth client). */
  explicitCredential: boolean;
  /** The project the handed-over auth client names (`authClient.projectId`), if any. */
  credentialProject?: string | null | undefined;
}

/** The project, region and credential source found, each `null` when missing. */
export interface VertexSetup {
  project: string | null;
  region: string | null;
  /** Where credentials come from, for people (`GOOGLE_APPLICATION_CREDENTIALS`, ...), or null. */
  credentials: string | null;
}

/** The gcloud application default credentials file (`gcloud auth application-default login`). */
export function gcloudAdcFile(): string {
  const configured = env('CLOUDSDK_CONFIG');
  if (configured) return join(configured, 'application_default_credentials.json');
  const appData = env('APPDATA');
  if (process.platform === 'win32' && appData)
    return join(appData, 'gcloud', 'application_default_credentials.json');
  return join(
    env('HOME') ?? homedir(),
    '.config',
    'gcloud',
    'application_default_credentials.json',
  );
}

/** The project a credentials file names (`project_id`, else `quota_project_id`), or null. */
function fileProject(file: string | null): string | null {
  if (file === null) return null;
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    for (const key of ['project_id', 'quota_project_id']) {
      const value = json[key];
      if (typeof value === 'string' && value.trim() !== '') return value.trim();
    }
  } catch {
    // an unreadable file names no project; google-auth-library reports it at the call
  }
  return null;
}

/** The credentials file application default credentials would read, or null. */
function credentialsFile(): { file: string; source: string } | null {
  const named = env('GOOGLE_APPLICATION_CREDENTIALS');
  if (named)
    return existsSync(named) ? { file: named, source: 'GOOGLE_APPLICATION_CREDENTIALS' } : null;
  const adc = gcloudAdcFile();
  return existsSync(adc) ? { file: adc, source: adc } : null;
}

/** Resolves the project, region and credential source, the way the call will (no network). */
export function vertexSetup(input: VertexSetupInput): VertexSetup {
  const file = credentialsFile();
  const credentials = input.explicitCredential
    ? 'the configured credential'
    : (file?.source ?? (input.metadataCredentials ? 'the metadata server' : null));
  const project =
    input.project ??
    env('ANTHROPIC_VERTEX_PROJECT_ID') ??
    env('GOOGLE_CLOUD_PROJECT') ??
    env('GCLOUD_PROJECT') ??
    (input.credentialProject || null) ??
    fileProject(file?.file ?? null);
  const region = input.region ?? env('CLOUD_ML_REGION') ?? env('GOOGLE_CLOUD_LOCATION') ?? null;
  return { project, region, credentials };
}

/**
 * Why no call can be made, or null: each missing piece named with where it is looked for
 * (never a value).
 */
export function vertexSetupProblem(setup: VertexSetup): string | null {
  const missing: string[] = [];
  if (setup.project === null)
    missing.push(
      'no Google Cloud project: set options.project, or ANTHROPIC_VERTEX_PROJECT_ID (or GOOGLE_CLOUD_PROJECT) in the environment',
    );
  if (setup.region === null)
    missing.push(
      'no Vertex AI region: set options.region, or CLOUD_ML_REGION in the environment (e.g. us-east5 or global)',
    );
  if (setup.credentials === null)
    missing.push(
      `no Google credentials: set GOOGLE_APPLICATION_CREDENTIALS to a credentials file, run \`gcloud auth application-default login\` (${gcloudAdcFile()}), set api_key to an OAuth access token, or set options.metadata_credentials: true on Google Cloud`,
    );
  return missing.length === 0 ? null : missing.join('; ');
}
