import { controlDb, shardDb, shardNames, type Db } from "../../core/db/client";
import type { Env } from "../../core/env";
import type { Actor } from "../../core/http/context";
import { uuidv7 } from "../../core/lib/ids";

/**
 * Where an account lives: a school member in the school's shard, the superadmin in the control
 * database. `shard` null means the control database.
 */
export function accountDb(env: Env, shard: string | null): Db {
  return shard === null ? controlDb(env) : shardDb(env, shard);
}

/** The database of the signed-in user's own account (not of a school a superadmin addresses). */
export function actorAccountDb(env: Env, actor: Actor): Db {
  return accountDb(env, actor.homeTenantId === null ? null : actor.tenant!.shard);
}

/**
 * Session ids say which database holds the session: the last 16 bits of the (otherwise random)
 * UUIDv7 are the shard's index, or 0xffff for the control database. The spec fixes the access
 * token's claims (`sid`, no shard) and the refresh token is `<session_id>.<secret>`, so this is
 * how the auth check reads the member and the school in one concurrent round trip and a refresh
 * finds its session without asking every shard. A forged id cannot help: tokens are signed, and a
 * session id pointing at the wrong database finds nothing there.
 */
const CONTROL_MARK = 0xffff;

export function newSessionId(now: number, shard: string | null): string {
  const mark = shard === null ? CONTROL_MARK : shardIndex(shard);
  return uuidv7(now).slice(0, -4) + mark.toString(16).padStart(4, "0");
}

/** The shard a session id names (null: the control database). */
export function sessionShard(sessionId: string): string | null {
  const mark = Number.parseInt(sessionId.slice(-4), 16);
  return mark === CONTROL_MARK ? null : `DB_SCHOOLS_${mark}`;
}

function shardIndex(shard: string): number {
  const match = /^DB_SCHOOLS_(\d{1,4})$/.exec(shard);
  if (!match || Number(match[1]) >= CONTROL_MARK) throw new Error(`not a school database: ${shard}`);
  return Number(match[1]);
}

/** The database holding a session, or null when its id names no bound database (a forged id). */
export function sessionDb(env: Env, sessionId: string): Db | null {
  const shard = sessionShard(sessionId);
  if (shard !== null && !shardNames(env).includes(shard)) return null;
  return accountDb(env, shard);
}

/**
 * A bearer secret that must find its row without naming a school (a device replacement token):
 * `<mark>.<secret>`, the mark being the same 4 hex digits as a session id's. The whole string is
 * hashed for storage, so the mark cannot be changed without invalidating the token.
 */
export function markedSecret(shard: string | null, secret: string): string {
  return `${newSessionId(0, shard).slice(-4)}.${secret}`;
}

/** The database a marked secret names; null when it names none (malformed or forged). */
export function markedSecretDb(env: Env, token: string): Db | null {
  const match = /^([0-9a-f]{4})\./.exec(token);
  return match ? sessionDb(env, `00000000-0000-7000-8000-00000000${match[1]}`) : null;
}
