import { SELF } from "cloudflare:test";
import { createLocalJWKSet, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { api, failure } from "../helpers/http";
import { ISO } from "../helpers/courses";
import { createSchool } from "../helpers/factories";
import { as, schoolWithAdmin, signedIn } from "../helpers/users";
import { insertEnrollment } from "../helpers/courses";
import { auditOf } from "../accommodations/helpers";
import { completeBlock, courseWithStudent, putRule, setNames } from "./helpers";

/** The public check (GET /verify/:code), the keys (GET /.well-known/jwks.json), the token and revocation (05 section 4). */

let addressCounter = 0;
/** Each test looks up from its own client address, so the per-address limit of one never reaches another. */
const newAddress = () => `198.51.100.${(addressCounter++ % 250) + 1}-${Date.now().toString(36)}`;

const verify = (code: string, address: string) => api(`/verify/${encodeURIComponent(code)}`, { headers: { "CF-Connecting-IP": address } });

async function issued(firstName = "Нұрлан", lastName = "Әбенов") {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  await setNames(student.id, firstName, lastName);
  const tree = await courseWithStudent(school.id, student, "История Казахстана");
  await putRule(admin, tree.courseId, { enabled: true, title: "Certificate of completion" });
  await completeBlock(student, tree.blockIds[0]!);
  const [certificate] = (await as(student, "/t/students/me/certificates")).body.data.certificates;
  return { school, admin, student, certificate };
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** The shard slot 05's code hashes to: the first 5 bits of SHA-256 over its 80 bits (10 bytes, big-endian). */
async function slotOf(code: string): Promise<number> {
  let value = 0n;
  for (const char of code.replaceAll("-", "")) value = value * 32n + BigInt(CROCKFORD.indexOf(char));
  const bytes = Uint8Array.from({ length: 10 }, (_, i) => Number((value >> BigInt(8 * (9 - i))) & 255n));
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))[0]! >> 3;
}

/** A well-formed code that hashes to `slot`. */
async function codeOfSlot(slot: number): Promise<string> {
  for (let i = 0; ; i++) {
    const code = `ZZZZZZZZZZZZ${i.toString(32).toUpperCase().padStart(4, "0")}`.replace(/[ILOU]/g, "Z");
    if ((await slotOf(code)) === slot) return code;
  }
}

describe("codes", () => {
  it("80 bits that hash to the school's shard, on either shard, through a completion and issue-missing; each verifies", async () => {
    for (const shard of ["DB_SCHOOLS_0", "DB_SCHOOLS_1"]) {
      const school = await createSchool({ shard });
      const admin = await signedIn(school, { role: "admin" });
      const [first, second, third] = [await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" })];
      const tree = await courseWithStudent(school.id, first);
      for (const student of [second, third]) await insertEnrollment(school.id, tree.courseId, student.id);
      await completeBlock(second, tree.blockIds[0]!);
      await completeBlock(third, tree.blockIds[0]!);
      await putRule(admin, tree.courseId, { enabled: true });
      expect((await as(admin, `/t/courses/${tree.courseId}/certificates/issue-missing`, { method: "POST" })).body.data).toEqual({ issued: 2 });
      expect((await completeBlock(first, tree.blockIds[0]!)).status).toBe(200);
      const list = await as(admin, `/t/courses/${tree.courseId}/certificates`);
      const codes: string[] = list.body.data.certificates.map((certificate: { code: string }) => certificate.code);
      expect(codes).toHaveLength(3);
      expect(new Set(codes).size).toBe(3);
      for (const code of codes) {
        expect(await slotOf(code)).toBe(Number(shard.slice("DB_SCHOOLS_".length)));
        const res = await verify(code, newAddress());
        expect(res.status).toBe(200);
        expect(res.body.data.code).toBe(code);
      }
    }
  });

  it("a well-formed code unknown on its shard, or hashing to a slot no shard fills, is the same 404", async () => {
    const address = newAddress();
    for (const slot of [0, 1, 7, 31]) {
      expect(failure(await verify(await codeOfSlot(slot), address))).toEqual({ status: 404, error: "certificate_not_found" });
    }
  });
});

describe("verify and JWKS", () => {
  it("answers a code with dashes or none, in any case, cacheable for a minute; the holder's last name as an initial", async () => {
    const { school, certificate } = await issued();
    const address = newAddress();
    const expected = {
      valid: true,
      status: "valid",
      code: certificate.code,
      holder_name: "Нұрлан Ә.",
      course_title: "История Казахстана",
      title: "Certificate of completion",
      school_name: certificate.school_name,
      issued_at: expect.stringMatching(ISO),
      revoked_at: null,
    };
    for (const form of [certificate.code, certificate.code.replaceAll("-", ""), certificate.code.toLowerCase()]) {
      const res = await verify(form, address);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(expected);
      expect(res.headers.get("Cache-Control")).toBe("public, max-age=60");
    }
    expect(certificate.school_name).toBe(school.title);
  });

  it("an unknown code and a malformed one answer the same 404", async () => {
    const address = newAddress();
    const unknown = await verify("0000-0000-0000-0000", address);
    const malformed = await verify("not a code!", address);
    expect(failure(unknown)).toEqual({ status: 404, error: "certificate_not_found" });
    expect(failure(malformed)).toEqual({ status: 404, error: "certificate_not_found" });
    expect(malformed.body.message).toBe(unknown.body.message);
    expect(failure(await verify("Z".repeat(16), address))).toEqual({ status: 404, error: "certificate_not_found" });
    expect(failure(await verify("A".repeat(500), address))).toEqual({ status: 404, error: "certificate_not_found" });
  });

  it("the token verifies with the JWKS key and fails after one changed byte", async () => {
    const { school, certificate } = await issued();
    const jwks = await SELF.fetch("https://api.lms.localhost/api/v1/.well-known/jwks.json");
    expect(jwks.status).toBe(200);
    const keySet = (await jwks.json()) as { keys: Record<string, string>[] };
    expect(keySet.keys.map((key) => key.kid)).toEqual(["test-cert-2", "test-cert-1"]);
    for (const key of keySet.keys) {
      expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
    }
    const { payload, protectedHeader } = await jwtVerify(certificate.token, createLocalJWKSet(keySet as never));
    expect(protectedHeader).toMatchObject({ alg: "EdDSA", kid: "test-cert-2" });
    expect(payload).toEqual({
      sub: certificate.code.replaceAll("-", ""),
      iss: school.subdomain,
      course: "История Казахстана",
      name: "Нұрлан Әбенов",
      iat: Math.floor(Date.parse(certificate.issued_at) / 1000),
    });
    // One byte of the payload changed: the signature no longer holds.
    const [header, body, signature] = certificate.token.split(".");
    const flipped = body[5] === "A" ? "B" : "A";
    const tampered = `${header}.${body.slice(0, 5)}${flipped}${body.slice(6)}.${signature}`;
    await expect(jwtVerify(tampered, createLocalJWKSet(keySet as never))).rejects.toThrow();
  });

  it("a revoked certificate shows as revoked; revoking twice is 409; the revocation is audited", async () => {
    const { school, admin, student, certificate } = await issued();
    const revoked = await as(admin, `/t/certificates/${certificate.id}/revoke`, { body: { reason: "Списывал на экзамене" } });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ status: "revoked", revoked_at: expect.stringMatching(ISO), revoke_reason: "Списывал на экзамене" });
    const check = await verify(certificate.code, newAddress());
    expect(check.body.data).toMatchObject({ valid: false, status: "revoked", revoked_at: revoked.body.data.revoked_at });
    expect(failure(await as(admin, `/t/certificates/${certificate.id}/revoke`, { body: { reason: "again" } }))).toEqual({ status: 409, error: "certificate_already_revoked" });
    expect(failure(await as(admin, `/t/certificates/${certificate.id}/revoke`, { body: { reason: "" } }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await as(student, `/t/certificates/${certificate.id}/revoke`, { body: { reason: "mine" } }))).toEqual({ status: 403, error: "forbidden" });
    expect(await auditOf(school.id)).toEqual([
      {
        action: "certificate.revoked",
        target_type: "certificate",
        target_id: certificate.id,
        actor_id: admin.id,
        changes: { status: ["valid", "revoked"], revoke_reason: [null, "Списывал на экзамене"] },
      },
    ]);
  });

  it("30 look-ups a minute per client address, then 429 rate_limited with Retry-After; another address is still served", async () => {
    const address = newAddress();
    // The limiter's windows are whole minutes: a run that crosses one starts counting again, so the
    // first 429 comes after at least 30 answers (and within two windows).
    let served = 0;
    let limited = await verify("0000-0000-0000-0000", address);
    while (limited.status === 404 && served < 61) {
      served += 1;
      limited = await verify("0000-0000-0000-0000", address);
    }
    expect(served).toBeGreaterThanOrEqual(30);
    expect(failure(limited)).toEqual({ status: 429, error: "rate_limited" });
    const retryAfter = Number(limited.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await verify("0000-0000-0000-0000", newAddress())).status).toBe(404);
  });
});
