import type { Config } from "../env";

type OriginConfig = Pick<Config, "appDomain" | "appUrlScheme" | "corsOrigins">;

function isLocalName(domain: string): boolean {
  return domain === "localhost" || domain.endsWith(".localhost");
}

/**
 * The origins a browser may call the API from: APP_DOMAIN itself and its direct school subdomains
 * on the configured scheme (any port only while APP_DOMAIN is a localhost name), plus the exact
 * origins of CORS_ORIGINS. Deeper subdomains are refused: a school owns one label, and a host such
 * as `evil.school.example.com` is nobody's school.
 */
export function isAllowedOrigin(origin: string, config: OriginConfig): boolean {
  if (config.corsOrigins.includes(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // An Origin header is exactly scheme://host[:port]; anything else is not one.
  if (url.origin !== origin.toLowerCase() || url.protocol !== `${config.appUrlScheme}:`) return false;
  if (url.port !== "" && !isLocalName(config.appDomain)) return false;
  const host = url.hostname;
  if (host === config.appDomain) return true;
  const suffix = "." + config.appDomain;
  return host.endsWith(suffix) && /^[a-z0-9-]+$/.test(host.slice(0, -suffix.length));
}

/**
 * Whether a request to a cookie flow (login, refresh, logout, device replacement) may proceed. A
 * native client sends neither Origin nor Sec-Fetch-Site and is not affected. A browser always
 * sends Origin on a POST; without it only a same-origin or user-initiated request passes.
 */
export function browserRequestAllowed(headers: { origin: string | undefined; secFetchSite: string | undefined }, config: OriginConfig): boolean {
  if (headers.origin === undefined && headers.secFetchSite === undefined) return true;
  if (headers.origin !== undefined) return isAllowedOrigin(headers.origin, config);
  return headers.secFetchSite === "same-origin" || headers.secFetchSite === "none";
}
