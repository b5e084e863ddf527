/** The canonical tool definition's name rule (core's `TOOL_NAME_PATTERN`). */
const CANONICAL = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * AI SDK tool names (free-form keys such as `getWeather`) ↔ canonical tool names, which tool
 * definitions hold to `^[a-z][a-z0-9_]{0,63}$`: a name that fits is kept, another is derived
 * (`get_weather`, made distinct with a number) and read back to the AI SDK's name in replies.
 */
export class ToolNameBridge {
  readonly #toCanonical = new Map<string, string>();
  readonly #toAiSdk = new Map<string, string>();

  /** The canonical name for an AI SDK tool name (the same name when it fits). */
  canonical(name: string): string {
    const known = this.#toCanonical.get(name);
    if (known) return known;
    let derived = CANONICAL.test(name) ? name : derive(name);
    for (let n = 2; this.#toAiSdk.has(derived) && this.#toAiSdk.get(derived) !== name; n++) {
      derived = `${derive(name).slice(0, 60)}_${n}`;
    }
    this.#toCanonical.set(name, derived);
    this.#toAiSdk.set(derived, name);
    return derived;
  }

  /** The AI SDK's name for a canonical name (as it came when it was never derived). */
  aiSdk(name: string): string {
    return this.#toAiSdk.get(name) ?? name;
  }
}

function derive(name: string): string {
  const snake = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_');
  return (/^[a-z]/.test(snake) ? snake : `t_${snake}`).slice(0, 64);
}
