import { describe, expect, it } from "vitest";
import { insertExam } from "../../helpers/exams";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { as, schoolWithAdmin, signedIn } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";

/** Concurrent authoring requests: each rule holds as the write's own condition. */

describe("concurrent exam writes", () => {
  it("publishing at once: one 200, the rest 409 exam_already_published, and each student hears once", async () => {
    const { school, admin } = await schoolWithAdmin();
    expect((await as(admin, "/t/notifications/admin/events/exam.published", { method: "PATCH", body: { enabled: true } })).status).toBe(200);
    const students = [await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" })];
    for (const student of students) await addPushDevice(school.id, student.id);
    const exam = await insertExam(school.id, { status: "draft", sections: [{ quizId: (await insertQuiz(school.id)).id }] });
    const results = await Promise.all(Array.from({ length: 5 }, () => as(admin, `/t/exams/${exam.id}/publish`, { method: "POST" })));
    expect(results.filter((res) => res.status === 200)).toHaveLength(1);
    for (const res of results.filter((candidate) => candidate.status !== 200)) expect(failure(res)).toEqual({ status: 409, error: "exam_already_published" });
    const pushes = (await outboxRows(school.id)).filter((row) => row.eventCode === "exam.published");
    expect(pushes.map((row) => row.userId).sort()).toEqual(students.map((student) => student.id).sort());
  });

  it("sections appended at once take distinct positions", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    const exam = await insertExam(school.id, { status: "draft" });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => as(admin, `/t/exams/${exam.id}/sections`, { body: { quiz_id: quiz.id, title: `S${i}`, weight: 1 } })),
    );
    expect(results.map((res) => res.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(results.map((res) => res.body.data.position as number).sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
