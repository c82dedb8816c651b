/**
 * A push's `deep_link` opens a screen of the school's own app, so it must be a same-origin
 * relative path. It is checked against an allowlist pattern, never a denylist: one leading `/`,
 * path segments of unreserved characters that do not start with a dot (no `.`/`..`, no empty
 * segment, so no `//host`), then an optional query and fragment. Schemes, backslashes, `@`,
 * whitespace and control characters cannot match, and percent-escapes are allowed only in the
 * query and never for a control character, `/`, `\`, `.` or `%` itself, so nothing decodes into
 * another origin.
 */
const SEGMENT = "[A-Za-z0-9_~-][A-Za-z0-9._~-]*";
const ESCAPE = "%(?:2[0-46-9A-Da-d]|[346][0-9A-Fa-f]|5[0-9ABD-Fabd-f]|7[0-9A-Ea-e]|[89A-Fa-f][0-9A-Fa-f])";
const QUERY = `(?:[A-Za-z0-9._~=&+-]|${ESCAPE})*`;
const FRAGMENT = "[A-Za-z0-9._~=&/-]*";
const DEEP_LINK = new RegExp(`^/(?:${SEGMENT}(?:/${SEGMENT})*/?)?(?:\\?${QUERY})?(?:#${FRAGMENT})?$`);

export const DEEP_LINK_MAX_LENGTH = 1000;

export function isSafeDeepLink(value: string): boolean {
  return value.length > 0 && value.length <= DEEP_LINK_MAX_LENGTH && DEEP_LINK.test(value);
}
