import { describe, expect, it } from "vitest";
import { failure } from "../helpers/http";
import { addGroupCurator, addMember, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../helpers/users";
import { auditOf, deleteProfile, getProfile, neutral, putProfile } from "./helpers";

/** GET/PUT/DELETE /t/users/:id/accommodation (05 section 1). */

const body = { time_multiplier: "1.50", extra_time_seconds: 30, extra_attempts: 2, note: "Medical certificate" };

describe("accommodation profile", () => {
  it("a student without a profile has the neutral one; PUT sets it, DELETE removes it, each audited", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const none = await getProfile(admin, student.id);
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual(neutral(student.id));

    const put = await putProfile(admin, student.id, body);
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({ ...body, user_id: student.id, updated_at: expect.any(String), updated_by: admin.id });
    expect((await getProfile(admin, student.id)).body.data).toEqual(put.body.data);

    // A number is accepted too; the same values again change nothing and write no entry.
    const again = await putProfile(admin, student.id, { ...body, time_multiplier: 1.5 });
    expect(again.body.data.time_multiplier).toBe("1.50");
    const changed = await putProfile(admin, student.id, { ...body, time_multiplier: "2", note: null });
    expect(changed.body.data).toMatchObject({ time_multiplier: "2.00", note: null });

    const removed = await deleteProfile(admin, student.id);
    expect(removed.status).toBe(204);
    expect((await getProfile(admin, student.id)).body.data).toEqual(neutral(student.id));
    // Nothing left to remove: still 204, no entry.
    expect((await deleteProfile(admin, student.id)).status).toBe(204);

    const target = { target_type: "accommodation", target_id: student.id, actor_id: admin.id };
    expect(await auditOf(school.id)).toEqual([
      {
        action: "accommodation.set",
        ...target,
        changes: { time_multiplier: ["1.00", "1.50"], extra_time_seconds: [0, 30], extra_attempts: [0, 2], note: [null, "Medical certificate"] },
      },
      { action: "accommodation.set", ...target, changes: { time_multiplier: ["1.50", "2.00"], note: ["Medical certificate", null] } },
      { action: "accommodation.removed", ...target, changes: { time_multiplier: ["2.00", "1.00"], extra_time_seconds: [30, 0], extra_attempts: [2, 0] } },
    ]);
  });

  it("refuses staff (400 not_a_student), unknown and foreign users (404), bad bodies (400)", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const curator = await signedIn(school, { role: "curator" });
    expect(failure(await putProfile(admin, curator.id, body))).toEqual({ status: 400, error: "not_a_student" });
    expect(failure(await putProfile(admin, admin.id, body))).toEqual({ status: 400, error: "not_a_student" });
    for (const id of [unknownId(), other.admin.id]) {
      expect(failure(await getProfile(admin, id))).toEqual({ status: 404, error: "user_not_found" });
      expect(failure(await putProfile(admin, id, body))).toEqual({ status: 404, error: "user_not_found" });
      expect(failure(await deleteProfile(admin, id))).toEqual({ status: 404, error: "user_not_found" });
    }
    expect(failure(await getProfile(admin, "nope"))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(failure(await putProfile(admin, "nope", body))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(failure(await deleteProfile(admin, "nope"))).toEqual({ status: 400, error: "invalid_id_format" });
    const bad = [
      { ...body, time_multiplier: "0.99" },
      { ...body, time_multiplier: "4.01" },
      { ...body, time_multiplier: "1.505" },
      { ...body, time_multiplier: 1.234 },
      { ...body, time_multiplier: "abc" },
      { ...body, extra_time_seconds: 36001 },
      { ...body, extra_time_seconds: -1 },
      { ...body, extra_attempts: 21 },
      { ...body, extra_attempts: 1.5 },
      { ...body, note: "x".repeat(501) },
      { time_multiplier: "1.50", extra_time_seconds: 0, extra_attempts: 0 },
      { ...body, extra: true },
    ];
    for (const sent of bad) expect(failure(await putProfile(admin, student.id, sent))).toEqual({ status: 400, error: "invalid_request_body" });
    expect((await putProfile(admin, student.id, { ...body, time_multiplier: "4.00", extra_time_seconds: 36000, extra_attempts: 20, note: "é".repeat(500) })).status).toBe(200);
    expect(await auditOf(other.school.id)).toEqual([]);
  });

  it("a restricted curator reaches their own students only; a curator without can_manage_students none", async () => {
    const { school, admin } = await schoolWithAdmin();
    const restricted = await signedIn(school, curatorWith({ can_manage_students: true }));
    const own = await signedIn(school, { role: "student" });
    const stranger = await signedIn(school, { role: "student" });
    const group = await createGroup(school.id);
    await addMember(group, own.id);
    await addGroupCurator(group, restricted.id);
    expect((await putProfile(restricted, own.id, body)).status).toBe(200);
    expect((await getProfile(restricted, own.id)).body.data.time_multiplier).toBe("1.50");
    expect(failure(await getProfile(restricted, stranger.id))).toEqual({ status: 404, error: "user_not_found" });
    expect(failure(await putProfile(restricted, stranger.id, body))).toEqual({ status: 404, error: "user_not_found" });
    expect(failure(await deleteProfile(restricted, stranger.id))).toEqual({ status: 404, error: "user_not_found" });
    const plain = await signedIn(school, curatorWith({ can_manage_courses: true }));
    expect(failure(await getProfile(plain, own.id))).toEqual({ status: 403, error: "forbidden" });
    expect(failure(await getProfile(own, own.id))).toEqual({ status: 403, error: "forbidden" });
    expect((await getProfile(admin, stranger.id)).body.data).toEqual(neutral(stranger.id));
  });
});
