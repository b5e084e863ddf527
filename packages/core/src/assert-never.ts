/**
 * Ends a `switch` over a union (stream events, blocks, slots): in the `default` branch it only
 * type-checks when every member was handled, so adding a member makes the compiler list each
 * switch that must learn it. At run time it throws for a value that slipped past the types (a
 * newer peer, a cast).
 *
 * @param value - The switched-on value, narrowed to `never` once every case returned or broke.
 * @param what - Names the value in the error (`"stream event"`).
 * @throws TypeError naming `what` and the value.
 *
 * @example
 * switch (event.type) {
 *   case 'text.delta': ...; break;
 *   // ...every other member
 *   default:
 *     assertNever(event, 'stream event');
 * }
 */
export function assertNever(value: never, what = 'value'): never {
  throw new TypeError(`Unhandled ${what}: ${JSON.stringify(value)}`);
}
