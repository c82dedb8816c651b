/**
 * The one URL rule of the API (docs/decisions/http.md, "Input rules for the whole API"): a URL a client
 * gives us to store and hand to other people's browsers and apps (embeds, videos, logos, avatars,
 * images in rich text) is parsed by the WHATWG parser, the one browsers use, and stored as that
 * parser serializes it, so what we check is what every reader later resolves. It must be https,
 * carry no credentials, and name a public DNS host: never an IP literal (the parser has already
 * turned decimal, octal and hex spellings into dotted IPv4), never a single label, never a
 * name reserved for local or internal networks.
 */

/** C0 controls, space-less whitespace, DEL, C1 controls, and every bidi control (marks, embeddings, overrides, isolates). */
const FORBIDDEN_CHARACTERS = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
/**
 * Characters a URL never needs unencoded and markup needs to break out of an attribute or tag;
 * a backslash reads as a slash in http(s) URLs, a trick to hide one host behind another.
 */
const MARKUP_CHARACTERS = /["<>`\\]/;

/** Top-level names that never resolve on the public internet (RFC 6761, 6762, 8375 and common internal suffixes). */
const RESERVED_SUFFIXES = ["localhost", "local", "localdomain", "internal", "intranet", "lan", "home", "corp", "private", "arpa", "test", "invalid", "onion"];

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

export const PUBLIC_URL_MAX = 2048;

export type PublicUrlResult = { ok: true; url: string } | { ok: false; reason: string };

/** The URL as the WHATWG parser serializes it, or why it is refused. */
export function parsePublicHttpsUrl(raw: string): PublicUrlResult {
  if (FORBIDDEN_CHARACTERS.test(raw)) return { ok: false, reason: "must not contain control or bidirectional characters" };
  if (MARKUP_CHARACTERS.test(raw)) return { ok: false, reason: 'must not contain ", <, >, ` or \\ (percent-encode them)' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "must be an absolute URL" };
  }
  if (url.protocol !== "https:") return { ok: false, reason: "must be an https URL" };
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "must not contain credentials" };
  const problem = hostProblem(url.hostname);
  if (problem) return { ok: false, reason: problem };
  if (url.href.length > PUBLIC_URL_MAX) return { ok: false, reason: `must be at most ${PUBLIC_URL_MAX} characters once encoded` };
  return { ok: true, url: url.href };
}

/** Why a parsed host is not a public DNS name, or null when it is. */
function hostProblem(hostname: string): string | null {
  if (hostname.startsWith("[") || IPV4.test(hostname)) return "must name a host, not an IP address";
  const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  const labels = name.split(".");
  if (labels.length < 2 || labels.some((label) => label === "")) return "must name a public host (a domain with a dot)";
  if (RESERVED_SUFFIXES.includes(labels[labels.length - 1]!)) return "must name a public host, not a local or internal one";
  return null;
}

/** Whether the value passes the rule (for filters that only keep or drop, such as the rich-text sanitizer). */
export function isPublicHttpsUrl(raw: string): boolean {
  return parsePublicHttpsUrl(raw).ok;
}
