import type { Config } from "../env";
import type { ServiceContext } from "./context";

/**
 * The origin every link the API returns is built on: PUBLIC_API_ORIGIN when configured, so a
 * forged `Host` header can never steer a link elsewhere; the request's own origin only when none
 * is configured (local development). A job has no request: it falls back to the app domain.
 */
export function publicOrigin(config: Config, requestUrl?: string): string {
  if (config.publicApiOrigin) return config.publicApiOrigin;
  if (requestUrl) return new URL(requestUrl).origin;
  return `${config.appUrlScheme}://${config.appDomain}`;
}

/** An absolute link to a path of this API (`/api/v1/...`), on the public origin. */
export function publicLink(ctx: Pick<ServiceContext, "publicOrigin">, path: string): string {
  return `${ctx.publicOrigin}${path}`;
}
