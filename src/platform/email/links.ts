import type { ServiceContext } from "../../core/http/context";
import type { Role } from "../../core/http/context";

/**
 * Where a user signs in, as emails link it (spec, POST /t/users): students on their school's
 * subdomain; admins, curators and the superadmin on the main domain.
 */
export function loginUrl(ctx: ServiceContext, account: { role: Role; subdomain: string | null }): string {
  return account.role === "student" && account.subdomain ? schoolUrl(ctx, account.subdomain, "/login") : mainDomainUrl(ctx, "/login");
}

export function mainDomainUrl(ctx: ServiceContext, path: string): string {
  return `${ctx.config.appUrlScheme}://${ctx.config.appDomain}${path}`;
}

function schoolUrl(ctx: ServiceContext, subdomain: string, path: string): string {
  return `${ctx.config.appUrlScheme}://${subdomain}.${ctx.config.appDomain}${path}`;
}

/**
 * Where an invited user sets their first password (05 section 3): the sign-in page of their school
 * with the set-password code, which the existing password-reset confirmation takes.
 */
export function setPasswordUrl(ctx: ServiceContext, account: { role: Role; subdomain: string; email: string; code: string }): string {
  const query = new URLSearchParams({ school: account.subdomain, email: account.email, code: account.code });
  const page = account.role === "student" ? schoolUrl(ctx, account.subdomain, "/set-password") : mainDomainUrl(ctx, "/set-password");
  return `${page}?${query.toString()}`;
}
