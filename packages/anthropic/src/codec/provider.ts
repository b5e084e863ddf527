/** The adapter name, which is also the provider key of Anthropic models. */
export const ANTHROPIC = 'anthropic';
