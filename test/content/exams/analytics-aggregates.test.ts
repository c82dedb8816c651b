import { describe, expect, it } from "vitest";
import { schoolD1 } from "../../helpers/databases";
import { insertExam, insertExamAttempt } from "../../helpers/exams";
import { createUser } from "../../helpers/factories";
import { insertQuiz } from "../../helpers/quizzes";
import { as, assignIndividualCurator, curatorWith, schoolWithAdmin, signedIn } from "../../helpers/users";

/**
 * The exam analytics aggregates (migrations/school/0002_analytics_aggregates.sql) against a plain
 * GROUP BY over the rows after every kind of event (docs/decisions/heavy-reads.md, "Analytics
 * aggregates"): attempts with their sections, exam finalize, a section's regrade, staff attempts,
 * section-attempt, quiz-attempt and exam-attempt deletion, member deletion and restore.
 */

const SECTION_PCT = `CASE WHEN q.max_score_hundredths > 0
    THEN min(10000, (20000 * max(coalesce(q.score_hundredths, 0), 0) + q.max_score_hundredths) / (2 * q.max_score_hundredths)) ELSE 0 END`;

async function aggregates(tenantId: string) {
  const d1 = await schoolD1(tenantId);
  const rows = async (query: string) => (await d1.prepare(query).bind(tenantId).all()).results;
  return {
    attempts: await rows(`SELECT exam_id, staff, attempts, submitted FROM exam_attempt_stats WHERE tenant_id = ? AND (attempts <> 0 OR submitted <> 0) ORDER BY 1, 2`),
    scores: await rows(
      `SELECT exam_id, staff, score_pct_hundredths AS pct, submitted, passed FROM exam_score_stats WHERE tenant_id = ? AND (submitted <> 0 OR passed <> 0) ORDER BY 1, 2, 3`,
    ),
    sections: await rows(`SELECT exam_id, exam_section_id, staff, pct_sum FROM exam_section_stats WHERE tenant_id = ? AND pct_sum <> 0 ORDER BY 1, 2, 3`),
  };
}

async function recomputed(tenantId: string) {
  const d1 = await schoolD1(tenantId);
  const rows = async (query: string) => (await d1.prepare(query).bind(tenantId).all()).results;
  const counted = `FROM exam_attempts a JOIN users u ON u.id = a.user_id AND u.tenant_id = a.tenant_id AND u.deleted_at IS NULL WHERE a.tenant_id = ?`;
  return {
    attempts: await rows(`SELECT a.exam_id, a.actor_role <> 'student' AS staff, count(*) AS attempts, sum(a.status = 'submitted') AS submitted ${counted} GROUP BY 1, 2 ORDER BY 1, 2`),
    scores: await rows(
      `SELECT a.exam_id, a.actor_role <> 'student' AS staff, coalesce(a.final_score_pct_hundredths, 0) AS pct, count(*) AS submitted, sum(coalesce(a.passed = 1, 0)) AS passed
        ${counted} AND a.status = 'submitted' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    ),
    sections: await rows(
      `SELECT * FROM (SELECT a.exam_id, e.exam_section_id, a.actor_role <> 'student' AS staff, sum(${SECTION_PCT}) AS pct_sum
        ${counted.replace(
          "WHERE",
          "JOIN exam_section_attempts e ON e.tenant_id = a.tenant_id AND e.exam_attempt_id = a.id JOIN quiz_attempts q ON q.tenant_id = a.tenant_id AND q.id = e.quiz_attempt_id AND q.exam_attempt_id = e.exam_attempt_id WHERE",
        )} AND a.status = 'submitted' GROUP BY 1, 2, 3) WHERE pct_sum <> 0 ORDER BY 1, 2, 3`,
    ),
  };
}

async function expectExact(tenantId: string, step: string) {
  const [kept, fresh] = [await aggregates(tenantId), await recomputed(tenantId)];
  expect({ step, ...kept }).toEqual({ step, ...fresh });
}

async function examWithSections() {
  const { school, admin } = await schoolWithAdmin();
  const [q1, q2] = [await insertQuiz(school.id), await insertQuiz(school.id)];
  const exam = await insertExam(school.id, { passingScore: 50, sections: [{ quizId: q1.id, weight: 2 }, { quizId: q2.id }] });
  const sections = (a: number, b: number) => [
    { sectionId: exam.sectionIds[0]!, quizId: q1.id, scoreHundredths: a, maxScoreHundredths: 300 },
    { sectionId: exam.sectionIds[1]!, quizId: q2.id, scoreHundredths: b, maxScoreHundredths: 200 },
  ];
  return { school, admin, exam, sections };
}

describe("exam analytics aggregates equal a recomputation", () => {
  it("through attempts, finalize, a section regrade, deletions and restores", async () => {
    const { school, admin, exam, sections } = await examWithSections();
    const d1 = await schoolD1(school.id);
    const anna = await signedIn(school, { role: "student" });
    const bek = await createUser(school.id, { role: "student" });

    const done = await insertExamAttempt(school.id, exam.id, anna.id, { finalScorePctHundredths: 7000, passed: true, sections: sections(250, 100) });
    await expectExact(school.id, "a submitted attempt with its sections");
    expect((await aggregates(school.id)).sections).toHaveLength(2);

    const running = await insertExamAttempt(school.id, exam.id, bek.id, { status: "in_progress", sections: sections(0, 0) });
    await expectExact(school.id, "an attempt in progress");
    await d1.prepare("UPDATE quiz_attempts SET status = 'submitted', score_hundredths = 150 WHERE id = ?").bind(running.sections[0]!.quizAttemptId).run();
    await d1
      .prepare("UPDATE exam_attempts SET status = 'submitted', submitted_at = ?, final_score_pct_hundredths = 3000, passed = 0 WHERE id = ?")
      .bind(Date.now(), running.id)
      .run();
    await expectExact(school.id, "exam finalize");

    await d1.prepare("UPDATE quiz_attempts SET score_hundredths = 300 WHERE id = ?").bind(done.sections[0]!.quizAttemptId).run();
    await d1.prepare("UPDATE exam_attempts SET final_score_pct_hundredths = 8000 WHERE id = ?").bind(done.id).run();
    await expectExact(school.id, "a section regraded");

    await insertExamAttempt(school.id, exam.id, admin.id, { actorRole: "admin", finalScorePctHundredths: 10_000, passed: true, sections: sections(300, 200) });
    await expectExact(school.id, "a staff attempt");

    expect((await as(admin, `/t/users/${anna.id}`, { method: "DELETE" })).status).toBe(200);
    await expectExact(school.id, "member deleted");
    await d1.prepare("UPDATE users SET deleted_at = NULL WHERE id = ?").bind(anna.id).run();
    await expectExact(school.id, "member restored");

    await d1.prepare("DELETE FROM exam_section_attempts WHERE id = ?").bind(done.sections[1]!.id).run();
    await expectExact(school.id, "a section attempt deleted");
    await d1.prepare("DELETE FROM quiz_attempts WHERE id = ?").bind(done.sections[0]!.quizAttemptId).run();
    await expectExact(school.id, "a section's quiz attempt deleted");
    await d1.prepare("DELETE FROM exam_attempts WHERE id = ?").bind(running.id).run();
    await expectExact(school.id, "an exam attempt deleted before its sections");
    await d1.prepare("DELETE FROM exam_section_attempts WHERE exam_attempt_id = ?").bind(running.id).run();
    await expectExact(school.id, "its section attempts deleted after it");
  });

  it("the admin's answer (from the aggregates) equals a restricted curator's over the same students (from the rows)", async () => {
    const { school, admin, exam, sections } = await examWithSections();
    const curator = await signedIn(school, curatorWith({ can_view_analytics: true }));
    for (let i = 0; i < 8; i++) {
      const student = await createUser(school.id, { role: "student" });
      await assignIndividualCurator(student.id, curator.id);
      const spec =
        i === 7
          ? { status: "in_progress" as const, sections: sections(0, 0).slice(0, 1) }
          : { finalScorePctHundredths: (i * 1337) % 10_001, passed: i % 2 === 0, sections: sections((i * 41) % 301, (i * 67) % 201).slice(0, i === 6 ? 1 : 2) };
      await insertExamAttempt(school.id, exam.id, student.id, spec);
    }
    await insertExamAttempt(school.id, exam.id, admin.id, { actorRole: "admin", finalScorePctHundredths: 9000, passed: true, sections: sections(300, 200) });
    await expectExact(school.id, "seeded");
    const fromAggregates = await as(admin, `/t/exams/${exam.id}/analytics`);
    const fromRows = await as(curator, `/t/exams/${exam.id}/analytics`);
    expect(fromAggregates.status).toBe(200);
    expect(fromAggregates.body.data).toMatchObject({ attempt_count: 8, submitted_count: 7 });
    expect(fromAggregates.body.data).toEqual(fromRows.body.data);
  });
});
