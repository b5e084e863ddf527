// Codes whose meaning a user can act on; their messages are still not sent (they name
// models, sessions or servers), only a fixed sentence per code.
const SAY: Readonly<Record<string, string>> = {
  turn_in_progress:
    'This chat has a turn running (maybe waiting for a tool approval); answer it or wait.',
  no_route: 'No configured model can take this message.',
  invalid_input: 'The message cannot be sent: it has no usable text.',
};

/**
 * The text a client sees for an error: its class when it is a model call's (rate_limit,
 * server_error, ...), a fixed sentence for a few known codes, else "An error occurred." —
 * never the error's message, which may hold a provider's reply or a server path.
 */
export function publicErrorText(error: unknown): string {
  const { error_class: errorClass, code } = (error ?? {}) as {
    error_class?: unknown;
    code?: unknown;
  };
  if (typeof errorClass === 'string' && /^[a-z_]+$/.test(errorClass)) {
    return `The model call failed (${errorClass}).`;
  }
  if (typeof code === 'string' && SAY[code]) return SAY[code];
  return 'An error occurred.';
}
