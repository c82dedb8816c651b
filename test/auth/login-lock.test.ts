import { describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/core/lib/clock";
import { createSchool, createUser } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { fixtureD1 } from "../helpers/databases";

const LOCKED = { status: 423, error: "too many attempts, try again later" };

const attempt = (email: string, password: string, subdomain: string, ip?: string) =>
  api("/auth/login", { body: { email, password, subdomain }, headers: ip ? { "cf-connecting-ip": ip } : {} });

describe("login brute-force lock", () => {
  it("answers 423 from the 6th failed attempt, even with the right password, and unlocks after 15 minutes", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    for (let i = 1; i <= 5; i++) {
      const res = await attempt(user.email, "wrong-password", school.subdomain);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("invalid credentials");
    }
    const locked = await attempt(user.email, user.password, school.subdomain);
    expect(failure(locked)).toEqual(LOCKED);

    const later = Date.now() + 15 * 60_000 + 1_000;
    setClockForTests({ now: () => later });
    expect((await attempt(user.email, user.password, school.subdomain)).status).toBe(200);
  });

  it("counts 100 concurrent wrong passwords as 100 failures: five 400s, then 423", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const results = await Promise.all(Array.from({ length: 100 }, () => attempt(user.email, "wrong-password", school.subdomain)));
    const answers = results.map(failure);
    expect(answers.filter((answer) => answer.status === 400)).toEqual(Array(5).fill({ status: 400, error: "invalid credentials" }));
    expect(answers.filter((answer) => answer.status === 423)).toEqual(Array(95).fill(LOCKED));
    const row = await fixtureD1.prepare("SELECT failures FROM login_failures WHERE key = ?").bind(`pair:${school.subdomain}:${user.email}`).first<{ failures: number }>();
    expect(row!.failures).toBe(100);
  });

  it("locks an unknown email the same way as a known one", async () => {
    const school = await createSchool();
    for (let i = 0; i < 5; i++) {
      expect(failure(await attempt("ghost@example.test", "wrong-password", school.subdomain))).toEqual({ status: 400, error: "invalid credentials" });
    }
    const res = await attempt("ghost@example.test", "wrong-password", school.subdomain);
    expect(failure(res)).toEqual(LOCKED);
  });

  it("locks an IP after 50 failures across different accounts", async () => {
    const school = await createSchool();
    const ip = `203.0.113.${Math.floor(Math.random() * 250)}`;
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => attempt(`victim${i}@example.test`, "wrong-password", school.subdomain, ip)));
    expect(results.every((res) => res.status === 400)).toBe(true);
    const user = await createUser(school.id);
    const res = await attempt(user.email, user.password, school.subdomain, ip);
    expect(failure(res)).toEqual(LOCKED);
    const elsewhere = await attempt(user.email, user.password, school.subdomain, "198.51.100.7");
    expect(elsewhere.status).toBe(200);
  });

  it("clears the pair counter on success", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    for (let i = 0; i < 4; i++) await attempt(user.email, "wrong-password", school.subdomain);
    expect((await attempt(user.email, user.password, school.subdomain)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await attempt(user.email, "wrong-password", school.subdomain)).status).toBe(400);
  });
});
