import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { jobContext } from "../../src/contributors";
import * as schema from "../../src/db/schema";
import { sweepMedia } from "../../src/platform/media/sweep-job";
import { createUser, db, login } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { as, schoolWithAdmin, signedIn, type Member } from "../helpers/users";
import { certificateRows, completeBlock, courseWithStudent, putRule } from "./helpers";

/** A certificate's stored PDF goes with its holder (docs/decisions/certificates.md, "Personal data"). */

/** The student's certificate of a fresh course, with a stored PDF (the object and its key on the row, as a first download leaves them). */
async function certificateWithPdf(admin: Member, student: Member) {
  const tree = await courseWithStudent(student.tenantId, student);
  await putRule(admin, tree.courseId, { enabled: true });
  expect((await completeBlock(student, tree.blockIds[0]!)).status).toBe(200);
  const [row] = (await certificateRows(student.id)).filter((certificate) => certificate.courseId === tree.courseId);
  const key = `certificates/${student.tenantId}/${row!.id}.pdf`;
  await env.MEDIA.put(key, "%PDF-1.7 stored");
  await db().update(schema.certificates).set({ pdfKey: key }).where(eq(schema.certificates.id, row!.id));
  return { id: row!.id, code: row!.code, key };
}

const objectAt = (key: string) => env.MEDIA.head(key);
const tombstonesOf = (key: string) => db().select().from(schema.mediaAssets).where(eq(schema.mediaAssets.objectKey, key));

describe("the PDF leaves no orphan object", () => {
  it("a permanent deletion of the holder removes the row at once and the stored PDF at the media sweep; another student's stays", async () => {
    const { school, admin } = await schoolWithAdmin();
    const holder = await signedIn(school, { role: "student" });
    const other = await signedIn(school, { role: "student" });
    const gone = await certificateWithPdf(admin, holder);
    const kept = await certificateWithPdf(admin, other);

    expect((await as(admin, `/t/users/${holder.id}/permanent`, { method: "DELETE" })).status).toBe(200);
    expect(await certificateRows(holder.id)).toEqual([]);
    expect(failure(await as(admin, `/t/certificates/${gone.id}`))).toEqual({ status: 404, error: "certificate_not_found" });
    // The tombstone is a deleted asset: nobody reads it, and it does not count towards the quota.
    const [tombstone] = await tombstonesOf(gone.key);
    expect(tombstone).toMatchObject({ tenantId: school.id, deletedAt: expect.any(Number), objectPurgedAt: null });
    expect(failure(await as(admin, `/t/media/${tombstone!.id}`))).toEqual({ status: 404, error: "media_not_found" });

    await sweepMedia(jobContext(env));
    expect(await objectAt(gone.key)).toBeNull();
    expect(await tombstonesOf(gone.key)).toEqual([]);
    expect(await objectAt(kept.key)).not.toBeNull();
    expect(await tombstonesOf(kept.key)).toEqual([]);
    expect((await as(other, `/t/certificates/${kept.id}`)).status).toBe(200);
  });

  it("a certificate without a stored PDF leaves no tombstone; deleting the school removes its members' PDFs", async () => {
    const { school, admin } = await schoolWithAdmin();
    const [first, second] = [await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" })];
    const stored = await certificateWithPdf(admin, first);
    const tree = await courseWithStudent(school.id, second);
    await putRule(admin, tree.courseId, { enabled: true });
    await completeBlock(second, tree.blockIds[0]!);
    const before = await db().select().from(schema.mediaAssets).where(eq(schema.mediaAssets.tenantId, school.id));
    expect(before).toEqual([]);
    // Another school's PDF is untouched.
    const elsewhere = await schoolWithAdmin();
    const otherStudent = await signedIn(elsewhere.school, { role: "student" });
    const foreign = await certificateWithPdf(elsewhere.admin, otherStudent);

    const superadmin = await createUser(null, { role: "superadmin" });
    const { token } = await login(superadmin, { subdomain: "" });
    expect((await api(`/admin/tenants/${school.id}`, { method: "DELETE", token })).status).toBe(200);
    expect(await db().select().from(schema.mediaAssets).where(eq(schema.mediaAssets.tenantId, school.id))).toHaveLength(1);

    await sweepMedia(jobContext(env));
    expect(await objectAt(stored.key)).toBeNull();
    expect(await db().select().from(schema.mediaAssets).where(eq(schema.mediaAssets.tenantId, school.id))).toEqual([]);
    expect(await objectAt(foreign.key)).not.toBeNull();
  });
});
