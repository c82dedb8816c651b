import { describe, expect, it } from "vitest";
import { failure } from "../helpers/http";
import { ISO } from "../helpers/courses";
import { as, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../helpers/users";
import { addPushDevice, outboxRows } from "../notifications/helpers";
import { CODE, certificateRows, completeBlock, courseWithStudent, putRule, setNames } from "./helpers";

/** The rule (GET/PUT /t/courses/:id/certificate) and issuance on completion (05 section 4). */

describe("certificate rule", () => {
  it("is disabled with the course title when none is set; PUT sets and replaces it", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const tree = await courseWithStudent(school.id, student, "Алгебра");
    const none = await as(admin, `/t/courses/${tree.courseId}/certificate`);
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual({ course_id: tree.courseId, enabled: false, title: "Алгебра", require_exam_id: null, min_exam_pct: null, updated_at: null });

    const put = await putRule(admin, tree.courseId, { enabled: true, title: "Сертификат об окончании", min_exam_pct: 70 });
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({ course_id: tree.courseId, enabled: true, title: "Сертификат об окончании", require_exam_id: null, min_exam_pct: 70, updated_at: expect.stringMatching(ISO) });
    expect((await as(admin, `/t/courses/${tree.courseId}/certificate`)).body.data).toEqual(put.body.data);

    const back = await putRule(admin, tree.courseId, { enabled: false });
    expect(back.body.data).toMatchObject({ enabled: false, title: "Алгебра", min_exam_pct: null });
  });

  it("refuses unknown and foreign courses (404), bad bodies and unpublished exams (400), students (403)", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const tree = await courseWithStudent(school.id, student);
    const foreign = await courseWithStudent(other.school.id, await signedIn(other.school, { role: "student" }));
    expect(failure(await as(admin, `/t/courses/${unknownId()}/certificate`))).toEqual({ status: 404, error: "course_not_found" });
    expect(failure(await as(admin, `/t/courses/${foreign.courseId}/certificate`))).toEqual({ status: 404, error: "course_not_found" });
    expect(failure(await putRule(admin, foreign.courseId, { enabled: true }))).toEqual({ status: 404, error: "course_not_found" });
    expect(failure(await putRule(admin, tree.courseId, { enabled: true, require_exam_id: unknownId() }))).toEqual({ status: 400, error: "invalid_exam_id" });
    expect(failure(await putRule(admin, tree.courseId, { enabled: "yes" }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await putRule(admin, tree.courseId, { enabled: true, title: "x".repeat(201) }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await putRule(admin, tree.courseId, { enabled: true, min_exam_pct: 101 }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await putRule(student, tree.courseId, { enabled: true }))).toEqual({ status: 403, error: "forbidden" });
    const curator = await signedIn(school, curatorWith({}));
    expect(failure(await as(curator, `/t/courses/${tree.courseId}/certificate`))).toEqual({ status: 403, error: "forbidden" });
  });
});

describe("issuance on completion", () => {
  it("the completing request issues one certificate and pushes certificate.issued to the student who acted", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await setNames(student.id, "Әлия", "Қасымова");
    await addPushDevice(school.id, student.id);
    const tree = await courseWithStudent(school.id, student, "Физика");
    await putRule(admin, tree.courseId, { enabled: true });

    expect((await completeBlock(student, tree.blockIds[0]!)).status).toBe(200);
    const [row, ...rest] = await certificateRows(student.id);
    expect(rest).toEqual([]);
    expect(row).toMatchObject({ courseId: tree.courseId, title: "Физика", courseTitle: "Физика", holderFirstName: "Әлия", holderLastName: "Қасымова", revokedAt: null });

    const mine = await as(student, "/t/students/me/certificates");
    expect(mine.status).toBe(200);
    const [certificate] = mine.body.data.certificates;
    expect(certificate).toEqual({
      id: row!.id,
      code: expect.stringMatching(CODE),
      course_id: tree.courseId,
      course_title: "Физика",
      title: "Физика",
      student_id: student.id,
      holder_name: "Әлия Қасымова",
      school_name: expect.any(String),
      issued_at: expect.stringMatching(ISO),
      status: "valid",
      revoked_at: null,
      revoke_reason: null,
      verify_url: `https://api.lms.localhost/api/v1/verify/${certificate.code}`,
      pdf_url: `https://api.lms.localhost/api/v1/t/certificates/${row!.id}/pdf`,
      token: expect.any(String),
    });
    expect(certificate.code.replaceAll("-", "")).toBe(row!.code);

    const pushes = (await outboxRows(school.id)).filter((push) => push.eventCode === "certificate.issued");
    expect(pushes.map((push) => [push.userId, push.body])).toEqual([[student.id, `Курс «Физика» пройден. Код сертификата: ${certificate.code}.`]]);
  });

  it("no certificate while the rule is off, nor without the required exam result; issue-missing issues later", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const tree = await courseWithStudent(school.id, student);
    expect((await completeBlock(student, tree.blockIds[0]!)).status).toBe(200);
    expect(await certificateRows(student.id)).toEqual([]);

    await putRule(admin, tree.courseId, { enabled: true });
    const issued = await as(admin, `/t/courses/${tree.courseId}/certificates/issue-missing`, { method: "POST" });
    expect(issued.status).toBe(200);
    expect(issued.body.data).toEqual({ issued: 1 });
    expect(await certificateRows(student.id)).toHaveLength(1);
    // Again: everyone who qualifies has one.
    expect((await as(admin, `/t/courses/${tree.courseId}/certificates/issue-missing`, { method: "POST" })).body.data).toEqual({ issued: 0 });
    expect(failure(await as(admin, `/t/courses/${unknownId()}/certificates/issue-missing`, { method: "POST" }))).toEqual({ status: 404, error: "course_not_found" });
  });
});
