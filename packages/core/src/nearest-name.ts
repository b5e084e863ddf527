import { distance } from 'fastest-levenshtein';

/**
 * The known name closest to `name`, for a "did you mean" hint, or `undefined` when none is
 * close enough to be worth suggesting. Names are compared case-insensitively by Levenshtein
 * distance; a known name is close enough when its distance is at most
 * `max(2, ⌊length / 3⌋)` (the length of `name`) and smaller than that length, so a short name
 * is never "corrected" into an unrelated one. Ties go to the first of `known`.
 *
 * ```ts
 * nearestName('maxStep', ['maxSteps', 'maxOutputTokens']); // 'maxSteps'
 * nearestName('antropic', ['anthropic', 'openai']); // 'anthropic'
 * nearestName('colour', ['maxSteps']); // undefined
 * ```
 */
export function nearestName(name: string, known: Iterable<string>): string | undefined {
  const wanted = name.toLowerCase();
  const limit = Math.min(Math.max(2, Math.floor(wanted.length / 3)), wanted.length - 1);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const d = distance(wanted, candidate.toLowerCase());
    if (d <= limit && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * The message for names that are not among `known`, each with its nearest known name when one
 * is close ({@link nearestName}); `prefix` goes before every name shown, so a nested option
 * names its path. One name:
 * `unknown option "maxStep"; did you mean "maxSteps"?`. Several:
 * `unknown options "maxStep" (did you mean "maxSteps"?), "colour"`.
 *
 * ```ts
 * unknownNameMessage('option', ['agentNam'], ['captureContent', 'agentName'], 'telemetry.');
 * // 'unknown option "telemetry.agentNam"; did you mean "telemetry.agentName"?'
 * ```
 *
 * @param kind What the names are, singular: `option`, `field`, `adapter type`.
 * @param names The unknown names, as given.
 * @param known The names that would have been accepted.
 * @param prefix Put before each name shown (a path such as `telemetry.`). Default none.
 */
export function unknownNameMessage(
  kind: string,
  names: readonly string[],
  known: Iterable<string>,
  prefix = '',
): string {
  const candidates = [...known];
  const hints = names.map((name) => {
    const near = nearestName(name, candidates);
    return { shown: `"${prefix}${name}"`, near: near === undefined ? null : `"${prefix}${near}"` };
  });
  const [only] = hints;
  if (hints.length === 1 && only) {
    return `unknown ${kind} ${only.shown}${only.near ? `; did you mean ${only.near}?` : ''}`;
  }
  const listed = hints.map((h) => (h.near ? `${h.shown} (did you mean ${h.near}?)` : h.shown));
  return `unknown ${kind}s ${listed.join(', ')}`;
}
