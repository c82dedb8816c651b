import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { setClockForTests } from "../../src/core/lib/clock";
import { createSchool, db } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { runCron } from "../helpers/billing";
import { as, schoolWithAdmin, signedIn, unknownId } from "../helpers/users";
import { build, download, exportRow, linkPath, pendingExport, pushDevice, pushesTo, readExport, requestFor, requestOwn } from "./helpers";

afterEach(() => setClockForTests(null));

const DAY = 86_400_000;

describe("POST /t/me/data-export", () => {
  it("answers 202 pending; the queue builds the file, the export turns ready with a signed link and the requester gets the push", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await pushDevice(school.id, student.id);
    const res = await requestOwn(student);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ success: true, data: { id: expect.any(String), status: "pending", created_at: expect.any(String) } });
    const id = res.body.data.id as string;

    await build(school.id, id);
    const read = await readExport(student, id);
    expect(read.status).toBe(200);
    const row = (await exportRow(id))!;
    expect(read.body.data).toEqual({
      id,
      user_id: student.id,
      status: "ready",
      created_at: res.body.data.created_at,
      ready_at: new Date(row.readyAt!).toISOString(),
      expires_at: new Date(row.readyAt! + 7 * DAY).toISOString(),
      download_url: expect.stringMatching(new RegExp(`^https://api\\.lms\\.localhost/api/v1/data-exports/${id}/download\\?school=${school.id}&exp=\\d+&sig=[0-9a-f]{64}$`)),
      size_bytes: row.sizeBytes,
    });
    const file = await download(read.body.data.download_url);
    expect(file.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(Number(file.headers.get("content-length"))).toBe(row.sizeBytes);
    expect(file.body).toMatchObject({ export_id: id, user_id: student.id, profile: { id: student.id, email: student.email } });

    // The push goes to the person who asked, although they are the one who acted.
    expect(await pushesTo(student.id)).toEqual([{ eventCode: "account.data_export_ready", data: { event_code: "account.data_export_ready", data_export_id: id } }]);
  });

  it("stays available while the school's billing is closed, as does reading the export", async () => {
    const school = await createSchool({ planState: "suspended", suspendedManually: true });
    const student = await signedIn(school, { role: "student" });
    expect(failure(await as(student, "/t/courses"))).toEqual({ status: 403, error: "PAYMENT_REQUIRED" });
    const res = await requestOwn(student);
    expect(res.status).toBe(202);
    expect((await readExport(student, res.body.data.id)).body.data).toMatchObject({ status: "pending", download_url: null, ready_at: null, expires_at: null, size_bytes: null });
  });

  it("one export per person per 24 hours, whoever asks: 429 export_rate_limited with Retry-After; a failed export does not count", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const earlier = await pendingExport(school.id, student.id, student.id, now - 3_600_000);
    const again = await requestOwn(student);
    expect(failure(again)).toEqual({ status: 429, error: "export_rate_limited" });
    expect(again.headers.get("retry-after")).toBe("82800");
    const byAdmin = await requestFor(admin, student.id);
    expect(failure(byAdmin)).toEqual({ status: 429, error: "export_rate_limited" });
    expect(byAdmin.headers.get("retry-after")).toBe("82800");
    // Another person is not limited by it.
    expect((await requestOwn(admin)).status).toBe(202);

    // The window's edges: 24 hours less a millisecond ago still counts, 24 hours ago no longer does.
    await db().update(schema.dataExports).set({ createdAt: now - DAY + 1 }).where(eq(schema.dataExports.id, earlier));
    const edge = await requestOwn(student);
    expect(failure(edge)).toEqual({ status: 429, error: "export_rate_limited" });
    expect(edge.headers.get("retry-after")).toBe("1");
    await db().update(schema.dataExports).set({ createdAt: now - DAY }).where(eq(schema.dataExports.id, earlier));
    const next = await requestOwn(student);
    expect(next.status).toBe(202);

    await db().update(schema.dataExports).set({ status: "failed", failedAt: now }).where(eq(schema.dataExports.id, next.body.data.id));
    expect((await requestOwn(student)).status).toBe(202);
  });
});

describe("POST /t/users/:id/data-export", () => {
  it("an admin exports a member's data; the push goes to the admin, the export is theirs to read", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await pushDevice(school.id, admin.id);
    await pushDevice(school.id, student.id);
    const res = await requestFor(admin, student.id);
    expect(res.status).toBe(202);
    const id = res.body.data.id as string;
    await build(school.id, id);
    expect((await readExport(admin, id)).body.data).toMatchObject({ user_id: student.id, status: "ready" });
    expect(await pushesTo(admin.id)).toEqual([{ eventCode: "account.data_export_ready", data: { event_code: "account.data_export_ready", data_export_id: id } }]);
    expect(await pushesTo(student.id)).toEqual([]);
    // The person did not ask for it: to them it is someone else's export.
    expect(failure(await readExport(student, id))).toEqual({ status: 404, error: "data_export_not_found" });
  });

  it("404 user_not_found for an unknown user and another school's; 400 invalid_id_format; 403 for non-admins", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const curator = await signedIn(school, { role: "curator", permissions: { can_manage_students: true } });
    const student = await signedIn(school, { role: "student" });
    expect(failure(await requestFor(admin, unknownId()))).toEqual({ status: 404, error: "user_not_found" });
    expect(failure(await requestFor(admin, other.admin.id))).toEqual({ status: 404, error: "user_not_found" });
    expect(failure(await requestFor(admin, "not-a-uuid"))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(failure(await requestFor(curator, student.id))).toEqual({ status: 403, error: "forbidden" });
  });
});

describe("GET /t/data-exports/:id", () => {
  it("another student's export is 404 to them; an admin reads it; unknown, foreign and malformed ids", async () => {
    const { school, admin } = await schoolWithAdmin();
    const owner = await signedIn(school, { role: "student" });
    const classmate = await signedIn(school, { role: "student" });
    const other = await schoolWithAdmin();
    const id = (await requestOwn(owner)).body.data.id as string;
    expect(failure(await readExport(classmate, id))).toEqual({ status: 404, error: "data_export_not_found" });
    expect(failure(await readExport(other.admin, id))).toEqual({ status: 404, error: "data_export_not_found" });
    expect(failure(await readExport(owner, unknownId()))).toEqual({ status: 404, error: "data_export_not_found" });
    expect(failure(await readExport(owner, "nope"))).toEqual({ status: 400, error: "invalid_id_format" });
    expect((await readExport(admin, id)).body.data).toMatchObject({ id, user_id: owner.id });
  });

  it("the file expires 7 days after ready: the export reads 404, the link stops working and the cron deletes the file and the row", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const id = (await requestOwn(student)).body.data.id as string;
    await build(school.id, id);
    const row = (await exportRow(id))!;
    const url = (await readExport(student, id)).body.data.download_url as string;
    expect(await env.MEDIA.head(row.objectKey!)).not.toBeNull();

    // The clock stays (tokens expire); the export's own times move instead.
    const now = Date.now();
    setClockForTests({ now: () => now });
    await db().update(schema.dataExports).set({ readyAt: now + 1 - 7 * DAY, expiresAt: now + 1 }).where(eq(schema.dataExports.id, id));
    expect((await readExport(student, id)).status).toBe(200);
    await runCron(now);
    expect(await env.MEDIA.head(row.objectKey!)).not.toBeNull();

    await db().update(schema.dataExports).set({ readyAt: now - 7 * DAY, expiresAt: now }).where(eq(schema.dataExports.id, id));
    expect(failure(await readExport(student, id))).toEqual({ status: 404, error: "data_export_not_found" });
    await runCron(now);
    expect(await env.MEDIA.head(row.objectKey!)).toBeNull();
    expect(await exportRow(id)).toBeUndefined();
    expect(failure(await api(linkPath(url)))).toEqual({ status: 404, error: "data_export_not_found" });
  });

  it("a permanent deletion of the person clears the export; the next cron run deletes its file and row", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const id = (await requestFor(admin, student.id)).body.data.id as string;
    await build(school.id, id);
    const row = (await exportRow(id))!;
    expect(await env.MEDIA.head(row.objectKey!)).not.toBeNull();
    expect((await as(admin, `/t/users/${student.id}/permanent`, { method: "DELETE" })).status).toBe(200);
    expect((await exportRow(id))!.userId).toBeNull();
    expect(failure(await readExport(admin, id))).toEqual({ status: 404, error: "data_export_not_found" });
    await runCron();
    expect(await env.MEDIA.head(row.objectKey!)).toBeNull();
    expect(await exportRow(id)).toBeUndefined();
  });
});
