/**
 * What a signed-in client keeps. `refresh_token` is present for native clients only: a browser's
 * refresh secret lives in an HttpOnly cookie and the client keeps just the two selectors
 * (docs/api.md, "Browser or native").
 */
export interface TokenSet {
  token: string;
  session_id: string;
  auth_device_id: string;
  refresh_token?: string;
}

/**
 * Where tokens live, chosen by the app: memory in a browser tab (the contract keeps the access
 * token in memory only), secure storage (Keychain, Keystore) on mobile. Both calls may be async.
 * After every refresh the client saves the whole new set: a native refresh token is single-use.
 */
export interface TokenStorage {
  load(): TokenSet | null | Promise<TokenSet | null>;
  save(tokens: TokenSet | null): void | Promise<void>;
}

/** Tokens in this object only (a browser tab, a test, a short script). */
export function memoryStorage(initial: TokenSet | null = null): TokenStorage {
  let tokens = initial;
  return {
    load: () => tokens,
    save: (next) => {
      tokens = next;
    },
  };
}

/** The answer of one `POST /auth/refresh`, reduced to what the session needs. */
export type RefreshOutcome =
  | { kind: "rotated"; tokens: TokenSet }
  | { kind: "stale" }
  | { kind: "ended" }
  | { kind: "failed" };

/**
 * Refresh rotation with one refresh in flight per access token (docs/decisions/api-client.md,
 * "Refresh single-flight"). Every call that got a 401 with the same access token waits for the
 * same refresh; a call whose 401 comes back after that refresh finished gets its result without
 * refreshing again, so a burst of calls costs exactly one rotation.
 */
export class TokenSession {
  private inflight: { from: string; promise: Promise<TokenSet | null> } | null = null;
  private rotated: { from: string; to: TokenSet } | null = null;

  constructor(
    private readonly storage: TokenStorage,
    private readonly refresh: (tokens: TokenSet) => Promise<RefreshOutcome>,
    private readonly onEnded: () => void,
  ) {}

  async current(): Promise<TokenSet | null> {
    return await this.storage.load();
  }

  async replace(tokens: TokenSet | null): Promise<void> {
    this.inflight = null;
    this.rotated = null;
    await this.storage.save(tokens);
  }

  /** The tokens to retry with after `used` got a 401, or null when the session cannot continue. */
  async renew(used: TokenSet): Promise<TokenSet | null> {
    const known = this.known(used);
    if (known) return known;
    const stored = await this.storage.load();
    if (!stored) return null;
    // Another call (or another holder of this storage) already rotated past the token that failed.
    if (stored.token !== used.token) return stored;
    // The state may have moved while the storage answered.
    const again = this.known(used);
    if (again) return again;
    const promise = this.rotate(stored).finally(() => {
      if (this.inflight?.promise === promise) this.inflight = null;
    });
    this.inflight = { from: used.token, promise };
    return promise;
  }

  private known(used: TokenSet): Promise<TokenSet | null> | TokenSet | null {
    if (this.rotated?.from === used.token) return this.rotated.to;
    if (this.inflight?.from === used.token) return this.inflight.promise;
    return null;
  }

  private async rotate(stored: TokenSet): Promise<TokenSet | null> {
    let outcome = await this.refresh(stored);
    if (outcome.kind === "stale") {
      // 409 stale_refresh_token: a concurrent refresh of the same session (another tab or app
      // instance) won within the server's grace window. Its result is the one to use.
      const latest = await this.storage.load();
      if (latest && latest.token !== stored.token) return latest;
      // A browser's cookie jar already holds the winner's cookie: one more refresh, never a loop.
      if (stored.refresh_token === undefined) outcome = await this.refresh(stored);
      else {
        // A native client without the winner's token must not replay its stale one: after the
        // grace window a replay counts as reuse and revokes the session for the winner too.
        await this.forget(stored);
        return null;
      }
    }
    if (outcome.kind === "rotated") {
      await this.storage.save(outcome.tokens);
      this.rotated = { from: stored.token, to: outcome.tokens };
      return outcome.tokens;
    }
    if (outcome.kind === "ended" || outcome.kind === "stale") await this.forget(stored);
    return null;
  }

  /** Clears the storage unless someone saved newer tokens meanwhile. */
  private async forget(stale: TokenSet): Promise<void> {
    const latest = await this.storage.load();
    if (latest && latest.token !== stale.token) return;
    await this.storage.save(null);
    this.onEnded();
  }
}
