import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The environment variables the AWS SDK reads (process.env unless a test passes its own). */
export type AwsEnvironment = Readonly<Record<string, string | undefined>>;

/** One profile's keys in the shared config or credentials file (`region`, `sso_session`, ...). */
export type ProfileSection = Readonly<Record<string, string>>;

/** What the shared files say of one profile, and where they were looked for. */
export interface SharedProfile {
  /** The profile's name (`options.profile`, else `AWS_PROFILE`, else `default`). */
  name: string;
  /** The config file's section for it (`[profile name]`, or `[default]`), if any. */
  config: ProfileSection | undefined;
  /** The credentials file's section for it (`[name]`), if any. */
  credentials: ProfileSection | undefined;
  /** The config file's path (`AWS_CONFIG_FILE`, else `~/.aws/config`). */
  configPath: string;
  /** The credentials file's path (`AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials`). */
  credentialsPath: string;
}

const present = (value: string | undefined): value is string =>
  typeof value === 'string' && value.trim() !== '';

/** The home directory the SDK reads `~/.aws` from (`HOME`, `USERPROFILE`, else the OS's). */
function homeOf(env: AwsEnvironment): string {
  if (present(env.HOME)) return env.HOME;
  if (present(env.USERPROFILE)) return env.USERPROFILE;
  return homedir();
}

/** A path with a leading `~/` taken as the home directory, as the SDK does. */
function expandHome(path: string, env: AwsEnvironment): string {
  return path.startsWith('~/') ? join(homeOf(env), path.slice(2)) : path;
}

/**
 * Sections of an INI file (`[name]` → its `key = value` lines), or an empty map when the file
 * cannot be read: only names and plain values are read, never written anywhere.
 */
function readIni(path: string): Map<string, Record<string, string>> {
  const sections = new Map<string, Record<string, string>>();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return sections;
  }
  let current: Record<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header?.[1] !== undefined) {
      current = sections.get(header[1]) ?? {};
      sections.set(header[1], current);
      continue;
    }
    const eq = line.indexOf('=');
    if (current && eq > 0) current[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return sections;
}

/**
 * The named profile as the shared config and credentials files hold it, read from disk only
 * (no network): `[profile name]` (or `[default]`) in the config file, `[name]` in the
 * credentials file, with `AWS_CONFIG_FILE` and `AWS_SHARED_CREDENTIALS_FILE` honoured.
 */
export function readSharedProfile(profile: string | undefined, env: AwsEnvironment): SharedProfile {
  const name = present(profile) ? profile : present(env.AWS_PROFILE) ? env.AWS_PROFILE : 'default';
  const configPath = expandHome(
    present(env.AWS_CONFIG_FILE) ? env.AWS_CONFIG_FILE : join(homeOf(env), '.aws', 'config'),
    env,
  );
  const credentialsPath = expandHome(
    present(env.AWS_SHARED_CREDENTIALS_FILE)
      ? env.AWS_SHARED_CREDENTIALS_FILE
      : join(homeOf(env), '.aws', 'credentials'),
    env,
  );
  const config = readIni(configPath);
  const credentials = readIni(credentialsPath);
  return {
    name,
    config:
      config.get(`profile ${name}`) ?? (name === 'default' ? config.get('default') : undefined),
    credentials: credentials.get(name),
    configPath,
    credentialsPath,
  };
}
