import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/core/lib/clock";
import { verifyPassword } from "../../src/platform/auth/password";
import { barrierD1, requestWithD1 } from "../helpers/d1-barrier";
import { createSchool, createUser, login } from "../helpers/factories";
import { historyOf } from "../helpers/history";
import { api, failure } from "../helpers/http";
import { emailsTo } from "../helpers/outbox";
import { expectSignedOut } from "../helpers/sessions";
import { userRow } from "../helpers/users";
import { fixtureD1, schoolD1 } from "../helpers/databases";

/** The user's reset-code rows, oldest first, straight from D1. */
async function codeRows(userId: string) {
  const { results } = await fixtureD1.prepare("SELECT created_at, used_at, invalidated_at FROM password_reset_codes WHERE user_id = ? ORDER BY created_at")
    .bind(userId)
    .all<{ created_at: number; used_at: number | null; invalidated_at: number | null }>();
  return results;
}

describe("race: concurrent password changes with the same current password", () => {
  it("8 concurrent POST /t/me/password, all past the password check before any writes: exactly one 200, seven 400 invalid current password; the stored hash is the winner's", async () => {
    const CHANGES = 8;
    const school = await createSchool();
    const user = await createUser(school.id);
    const current = await login(user, { subdomain: school.subdomain });
    const other = await login(user, { subdomain: school.subdomain });
    const passwords = Array.from({ length: CHANGES }, (_, i) => `new-password-number-${i}`);
    // The requests interleave however the runtime schedules them (often one after the other); the
    // barrier makes every run the worst case: all of them checked the old password before any writes.
    const barrier = barrierD1(await schoolD1(school.id), { held: /^update "users" set "password_hash"/i, parties: CHANGES });

    const results = await Promise.all(
      passwords.map((password) =>
        requestWithD1(barrier.db, "/t/me/password", {
          token: current.token,
          tenant: school.subdomain,
          body: { current_password: user.password, new_password: password },
        }),
      ),
    );
    expect(barrier.stats.releases).toEqual([CHANGES]);
    const winners = passwords.filter((_, i) => results[i]!.status === 200);
    expect(winners).toHaveLength(1);
    const winner = winners[0]!;
    expect(results[passwords.indexOf(winner)]!.body).toEqual({ success: true, data: { password_changed: true, other_sessions_revoked: 1 } });
    expect(results.filter((res) => res.status !== 200).map(failure)).toEqual(Array(CHANGES - 1).fill({ status: 400, error: "invalid current password" }));

    // D1: the hash is the winner's, and only the winner ended the other session (once).
    const { passwordHash } = (await userRow(user.id))!;
    const matches = await Promise.all([user.password, ...passwords].map(async (password) => (await verifyPassword(password, passwordHash, env.PASSWORD_PEPPER)).valid));
    expect(matches).toEqual([false, ...passwords.map((password) => password === winner)]);
    expect((await historyOf(user.id, "session_revoked")).map((event) => [event.session_id, event.detail])).toEqual([
      [other.session_id, { reason: "password_change", sessions: 1 }],
    ]);
    await expectSignedOut({ token: other.token, subdomain: school.subdomain });
    expect((await api("/auth/me", { token: current.token, tenant: school.subdomain })).status).toBe(200);
    expect((await api("/auth/login", { body: { email: user.email, password: winner, subdomain: school.subdomain } })).status).toBe(200);
  });
});

describe("race: concurrent forgot-password requests", () => {
  /** Every request waits at its code write until all have looked the user up: none sees another's code first. */
  const codeWrites = async (tenantId: string, parties: number) => barrierD1(await schoolD1(tenantId), { held: /^update "password_reset_codes"/i, parties });

  it("10 concurrent first requests: all answer the same 200, one live code row, one email", async () => {
    const REQUESTS = 10;
    const school = await createSchool();
    const user = await createUser(school.id);
    const now = Date.now();
    setClockForTests({ now: () => now });

    const barrier = await codeWrites(school.id, REQUESTS);
    const results = await Promise.all(
      Array.from({ length: REQUESTS }, () => requestWithD1(barrier.db, "/auth/forgot-password", { body: { email: user.email, subdomain: school.subdomain } })),
    );
    expect(barrier.stats.releases).toEqual([REQUESTS]);
    expect(results.map((res) => res.status)).toEqual(Array(REQUESTS).fill(200));
    expect(new Set(results.map((res) => JSON.stringify(res.body))).size).toBe(1);

    expect(await codeRows(user.id)).toEqual([{ created_at: now, used_at: null, invalidated_at: null }]);
    const emails = await emailsTo(user.email);
    expect(emails).toHaveLength(1);
    const reset = await api("/auth/reset-password", {
      body: { email: user.email, subdomain: school.subdomain, code: emails[0]!.metaJson.code, new_password: "after-the-race" },
    });
    expect(reset.status).toBe(200);
  });

  it("10 concurrent requests a minute after a code: the old code is invalidated, exactly one new live code, one more email", async () => {
    const REQUESTS = 10;
    const school = await createSchool();
    const user = await createUser(school.id);
    const start = Date.now();
    setClockForTests({ now: () => start });
    expect((await api("/auth/forgot-password", { body: { email: user.email, subdomain: school.subdomain } })).status).toBe(200);
    const later = start + 61_000;
    setClockForTests({ now: () => later });

    const barrier = await codeWrites(school.id, REQUESTS);
    const results = await Promise.all(
      Array.from({ length: REQUESTS }, () => requestWithD1(barrier.db, "/auth/forgot-password", { body: { email: user.email, subdomain: school.subdomain } })),
    );
    expect(barrier.stats.releases).toEqual([REQUESTS]);
    expect(results.map((res) => res.status)).toEqual(Array(REQUESTS).fill(200));

    expect(await codeRows(user.id)).toEqual([
      { created_at: start, used_at: null, invalidated_at: later },
      { created_at: later, used_at: null, invalidated_at: null },
    ]);
    const emails = await emailsTo(user.email);
    expect(emails).toHaveLength(2);
    // The live code is the newest email's.
    const reset = await api("/auth/reset-password", {
      body: { email: user.email, subdomain: school.subdomain, code: emails[0]!.metaJson.code, new_password: "after-the-race" },
    });
    expect(reset.status).toBe(200);
    expect((await codeRows(user.id)).map((row) => row.used_at)).toEqual([null, later]);
  });
});
