import { api } from "./http";

/** A school web app under APP_DOMAIN on the configured scheme (http in wrangler.toml). */
export const BROWSER_ORIGIN = { origin: "http://app.lms.localhost" };

/** The cookie pair (`name=value`) of a Set-Cookie header. */
export function cookiePair(setCookie: string | null): string {
  if (!setCookie) throw new Error("no Set-Cookie header");
  return setCookie.split(";")[0]!;
}

export function refreshNative(refreshToken: string, extra: Record<string, unknown> = {}) {
  return api("/auth/refresh", { body: { refresh_token: refreshToken, ...extra } });
}

export function decodeJwtPart(token: string, index: 0 | 1): Record<string, unknown> {
  const part = token.split(".")[index]!;
  return JSON.parse(atob(part.replaceAll("-", "+").replaceAll("_", "/")));
}
