import { expect } from "vitest";
import { api, failure } from "./http";

export const UNAUTHORIZED = { status: 401, error: "unauthorized" } as const;

/** The access token is refused the way the contract says: GET /auth/me answers 401 `unauthorized`. */
export async function expectSignedOut(who: { token: string; subdomain: string }): Promise<void> {
  expect(failure(await api("/auth/me", { token: who.token, tenant: who.subdomain }))).toEqual(UNAUTHORIZED);
}
