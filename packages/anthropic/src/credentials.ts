import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Whether the Anthropic adapter has a credential to call with, checked the way the SDK finds
 * one: an API key or auth token passed in or in the environment, an `x-api-key` or
 * `Authorization` header set by the caller, or the SDK's default credential chain (a profile
 * named by `ANTHROPIC_PROFILE`, OIDC federation from the environment, or the active profile's
 * config file). Anything that may authenticate counts: a model is only kept from routing when
 * no call could.
 */

const present = (value: string | null | undefined): boolean =>
  typeof value === 'string' && value.trim() !== '';

const env = (name: string): string | undefined => process.env[name];

const AUTH_HEADER = /^(?:x-api-key|authorization)$/i;

/** Whether caller headers (`extra_headers`, `ANTHROPIC_CUSTOM_HEADERS`) carry a credential. */
function authHeaderSet(headers: Readonly<Record<string, string>>): boolean {
  const custom = (env('ANTHROPIC_CUSTOM_HEADERS') ?? '').split('\n').map((line) => {
    const colon = line.indexOf(':');
    return colon < 0 ? ['', ''] : [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
  });
  return [...Object.entries(headers), ...custom].some(
    ([name, value]) => AUTH_HEADER.test(name ?? '') && present(value),
  );
}

/** The SDK's config directory (`ANTHROPIC_CONFIG_DIR`, else the platform's config home). */
function configDirectory(): string | null {
  const explicit = env('ANTHROPIC_CONFIG_DIR');
  if (present(explicit)) return explicit as string;
  if (process.platform === 'win32') {
    const appData = env('APPDATA');
    if (present(appData)) return join(appData as string, 'Anthropic');
    const profile = env('USERPROFILE');
    return present(profile) ? join(profile as string, 'AppData', 'Roaming', 'Anthropic') : null;
  }
  const xdg = env('XDG_CONFIG_HOME');
  if (present(xdg)) return join(xdg as string, 'anthropic');
  const home = env('HOME');
  return present(home) ? join(home as string, '.config', 'anthropic') : null;
}

/** Whether the active profile's config file (`<config dir>/configs/<profile>.json`) exists. */
function profileConfigExists(): boolean {
  const dir = configDirectory();
  if (dir === null) return false;
  let profile = 'default';
  try {
    profile = readFileSync(join(dir, 'active_config'), 'utf8').trim() || 'default';
  } catch {
    // no active_config: the SDK uses the "default" profile
  }
  return existsSync(join(dir, 'configs', `${profile}.json`));
}

/**
 * Why no Anthropic call can authenticate with `config` and the environment, or null when one
 * may. The text names where a key is looked for and never quotes a value.
 */
export function anthropicCredentialProblem(config: {
  api_key?: string | null | undefined;
  extra_headers: Readonly<Record<string, string>>;
}): string | null {
  if (present(config.api_key)) return null;
  if (present(env('ANTHROPIC_API_KEY')) || present(env('ANTHROPIC_AUTH_TOKEN'))) return null;
  if (authHeaderSet(config.extra_headers)) return null;
  // the SDK's default credential chain: a named profile, federation, the active profile
  if (present(env('ANTHROPIC_PROFILE'))) return null;
  if (present(env('ANTHROPIC_FEDERATION_RULE_ID')) && present(env('ANTHROPIC_ORGANIZATION_ID')))
    return null;
  if (profileConfigExists()) return null;
  return 'no API key: set api_key in the adapter config, or ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) in the environment';
}
