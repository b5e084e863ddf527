/** Whether `name` matches `pattern`, where `*` stands for any run of characters. */
function matches(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  const escaped = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`).test(name);
}

/**
 * Whether a server's allow and deny lists let a tool through: listed in `allow` (when given) and
 * not in `deny`, which wins.
 */
export function isToolAllowed(
  name: string,
  lists: { allow?: readonly string[] | undefined; deny?: readonly string[] | undefined },
): boolean {
  if (lists.deny?.some((p) => matches(p, name))) return false;
  return lists.allow === undefined || lists.allow.some((p) => matches(p, name));
}
