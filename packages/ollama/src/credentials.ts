const present = (value: string | null | undefined): boolean =>
  typeof value === 'string' && value.trim() !== '';

/**
 * Why no Ollama call can authenticate, or null. A local or self-hosted server needs no key, so
 * only ollama.com, which refuses calls without one, can have a problem: none of `api_key` in
 * the config, `OLLAMA_API_KEY` in the environment (the ollama client sends it there on its own)
 * or an `Authorization` header in `extra_headers`. The text never quotes a value.
 */
export function ollamaCredentialProblem(
  host: string,
  config: {
    api_key?: string | null | undefined;
    extra_headers?: Readonly<Record<string, string>> | undefined;
  },
): string | null {
  let hostname: string;
  try {
    hostname = new URL(host.includes('://') ? host : `http://${host}`).hostname;
  } catch {
    return null;
  }
  if (hostname !== 'ollama.com') return null;
  if (present(config.api_key) || present(process.env.OLLAMA_API_KEY)) return null;
  const headers = Object.entries(config.extra_headers ?? {});
  if (headers.some(([name, value]) => name.toLowerCase() === 'authorization' && present(value)))
    return null;
  return 'no API key for ollama.com: set api_key in the adapter config or OLLAMA_API_KEY in the environment';
}
