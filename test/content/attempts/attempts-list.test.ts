import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import * as schema from "../../../src/db/schema";
import { roundTripD1 } from "../../helpers/d1-counter";
import { createSchool, createUser, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertAttempt, insertQuiz } from "../../helpers/quizzes";
import { addGroupCurator, addMember, as, assignIndividualCurator, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

const T0 = Date.parse("2030-03-01T10:00:00.000Z");
const at = (minutes: number) => T0 + minutes * 60_000;

/**
 * A quiz with finished and unfinished attempts of three students, staff attempts, an exam-section
 * attempt, a deleted student's attempt and attempts of another quiz and another school.
 */
async function quizWithAttempts() {
  const { school, admin } = await schoolWithAdmin();
  const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
  const other = await insertQuiz(school.id);
  const anna = await createUser(school.id, { role: "student", firstName: "Anna", email: "anna@example.test" });
  const bekzod = await createUser(school.id, { role: "student", firstName: "Bekzod", email: "bekzod@example.test" });
  const dilya = await createUser(school.id, { role: "student", firstName: "Dilya", email: "dilya@example.test" });
  const gone = await createUser(school.id, { role: "student", firstName: "Gone" });
  await db().update(schema.users).set({ deletedAt: Date.now() }).where(eq(schema.users.id, gone.id));
  const teacher = await createUser(school.id, { role: "curator", firstName: "Teacher", email: "teacher@example.test" });

  const finished = (userId: string, minute: number, extra: Parameters<typeof insertAttempt>[3] = {}) =>
    insertAttempt(school.id, quiz.id, userId, {
      startedAt: at(minute - 5),
      submittedAt: at(minute),
      scoreHundredths: 150,
      maxScoreHundredths: 200,
      scorePctHundredths: 7500,
      passed: true,
      ...extra,
    });
  const ids = {
    annaFirst: await finished(anna.id, 1, { scoreHundredths: 50, scorePctHundredths: 2500, passed: false }),
    bekzod: await finished(bekzod.id, 2, { scoreHundredths: 0, scorePctHundredths: 0, passed: null, pendingReview: true }),
    annaSecond: await finished(anna.id, 3, { autoFinalized: true, deadlineAt: at(3) }),
    dilya: await finished(dilya.id, 4, { scoreHundredths: 133, maxScoreHundredths: 300, scorePctHundredths: 4433, passed: false }),
    teacher: await finished(teacher.id, 5, { actorRole: "curator" }),
    admin: await finished(admin.id, 6, { actorRole: "admin", pendingReview: true, passed: null }),
  };
  // Not listed: in progress, inside an exam section, a deleted student's, another quiz's, another school's.
  await insertAttempt(school.id, quiz.id, dilya.id, { status: "in_progress", startedAt: at(7) });
  await finished(dilya.id, 8, { examAttemptId: unknownId() });
  await finished(gone.id, 9);
  await insertAttempt(school.id, other.id, anna.id, { submittedAt: at(10) });
  const foreign = await createSchool();
  const stranger = await createUser(foreign.id, { role: "student" });
  await insertAttempt(foreign.id, quiz.id, stranger.id, { submittedAt: at(11) });
  return { school, admin, quiz, anna, bekzod, dilya, teacher, ids };
}

const list = (member: Member, quizId: string, query = "") => as(member, `/t/quizzes/${quizId}/attempts${query}`);
const attemptIds = (res: { body: any }) => (res.body.data.attempts as { attempt_id: string }[]).map((row) => row.attempt_id);

describe("GET /t/quizzes/:id/attempts", () => {
  it("lists the students' finished attempts outside exams, newest submitted first, with exact rows", async () => {
    const { admin, quiz, anna, bekzod, dilya, ids } = await quizWithAttempts();
    const res = await list(admin, quiz.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      attempts: [
        {
          attempt_id: ids.dilya,
          student_id: dilya.id,
          email: "dilya@example.test",
          first_name: "Dilya",
          last_name: "User",
          actor_role: "student",
          score: "1.33",
          max_score: "3.00",
          score_pct: "44.33",
          passed: false,
          pending_review: false,
          submitted_at: "2030-03-01T10:04:00.000Z",
          auto_finalized: false,
        },
        {
          attempt_id: ids.annaSecond,
          student_id: anna.id,
          email: "anna@example.test",
          first_name: "Anna",
          last_name: "User",
          actor_role: "student",
          score: "1.50",
          max_score: "2.00",
          score_pct: "75.00",
          passed: true,
          pending_review: false,
          submitted_at: "2030-03-01T10:03:00.000Z",
          auto_finalized: true,
        },
        {
          attempt_id: ids.bekzod,
          student_id: bekzod.id,
          email: "bekzod@example.test",
          first_name: "Bekzod",
          last_name: "User",
          actor_role: "student",
          score: "0.00",
          max_score: "2.00",
          score_pct: "0.00",
          passed: null,
          pending_review: true,
          submitted_at: "2030-03-01T10:02:00.000Z",
          auto_finalized: false,
        },
        expect.objectContaining({ attempt_id: ids.annaFirst, score: "0.50", score_pct: "25.00", passed: false }),
      ],
      total: 4,
      page: 1,
      limit: 20,
    });
  });

  it("filters by student_id, pending_review and include_admin_attempts; totals follow the filters", async () => {
    const { admin, quiz, anna, bekzod, ids } = await quizWithAttempts();
    const cases: [string, string[]][] = [
      [`?student_id=${anna.id}`, [ids.annaSecond, ids.annaFirst]],
      [`?student_id=${anna.id.toUpperCase()}`, [ids.annaSecond, ids.annaFirst]],
      [`?student_id=${unknownId()}`, []],
      ["?pending_review=true", [ids.bekzod]],
      ["?pending_review=false", [ids.dilya, ids.annaSecond, ids.annaFirst]],
      ["?include_admin_attempts=true", [ids.admin, ids.teacher, ids.dilya, ids.annaSecond, ids.bekzod, ids.annaFirst]],
      ["?include_admin_attempts=false", [ids.dilya, ids.annaSecond, ids.bekzod, ids.annaFirst]],
      ["?include_admin_attempts=true&pending_review=true", [ids.admin, ids.bekzod]],
      [`?include_admin_attempts=true&pending_review=false&student_id=${bekzod.id}`, []],
      [`?pending_review=true&student_id=${bekzod.id}`, [ids.bekzod]],
    ];
    for (const [query, expected] of cases) {
      const res = await list(admin, quiz.id, query);
      expect({ query, status: res.status, ids: attemptIds(res), total: res.body.data.total }).toEqual({ query, status: 200, ids: expected, total: expected.length });
    }
    const staff = await list(admin, quiz.id, "?include_admin_attempts=true");
    expect(staff.body.data.attempts.slice(0, 2).map((row: { actor_role: string }) => row.actor_role)).toEqual(["admin", "curator"]);
  });

  it("pages with page and limit; the total is the filtered set's", async () => {
    const { admin, quiz, ids } = await quizWithAttempts();
    const pages = [
      ["?limit=3", [ids.dilya, ids.annaSecond, ids.bekzod]],
      ["?limit=3&page=2", [ids.annaFirst]],
      ["?limit=3&page=3", []],
      ["?limit=1&page=2&include_admin_attempts=true", [ids.teacher]],
    ] as const;
    for (const [query, expected] of pages) {
      const res = await list(admin, quiz.id, query);
      const limit = Number(new URLSearchParams(query.slice(1)).get("limit"));
      const page = Number(new URLSearchParams(query.slice(1)).get("page") ?? 1);
      expect({ query, ids: attemptIds(res), total: res.body.data.total, page: res.body.data.page, limit: res.body.data.limit }).toEqual({
        query,
        ids: expected,
        total: query.includes("include_admin") ? 6 : 4,
        page,
        limit,
      });
    }
  });

  it("a restricted curator sees only their students' attempts; a curator with manage_groups sees all", async () => {
    const { school, quiz, anna, bekzod, dilya, ids } = await quizWithAttempts();
    const restricted = await signedIn(school, curatorWith({ can_view_analytics: true }));
    await assignIndividualCurator(anna.id, restricted.id);
    const group = await createGroup(school.id);
    await addMember(group, bekzod.id);
    await addGroupCurator(group, restricted.id);
    const res = await list(restricted, quiz.id, "?include_admin_attempts=true");
    expect({ ids: attemptIds(res), total: res.body.data.total }).toEqual({ ids: [ids.annaSecond, ids.bekzod, ids.annaFirst], total: 3 });
    const outsider = await list(restricted, quiz.id, `?student_id=${dilya.id}`);
    expect(outsider.body.data).toMatchObject({ attempts: [], total: 0 });

    const manager = await signedIn(school, curatorWith({ can_view_analytics: true, can_manage_groups: true }));
    expect((await list(manager, quiz.id)).body.data.total).toBe(4);
  });

  it("404 quiz_not_found for an unknown, deleted or foreign quiz; 400 for a bad id or query", async () => {
    const { school, admin, quiz } = await quizWithAttempts();
    const deleted = await insertQuiz(school.id, { deleted: true });
    const foreign = await insertQuiz((await createSchool()).id);
    for (const quizId of [unknownId(), deleted.id, foreign.id]) {
      expect(failure(await list(admin, quizId))).toEqual({ status: 404, error: "quiz_not_found" });
    }
    expect(failure(await as(admin, "/t/quizzes/not-a-uuid/attempts"))).toEqual({ status: 400, error: "invalid_id_format" });
    for (const query of ["?limit=0", "?limit=101", "?page=0", "?pending_review=yes", "?include_admin_attempts=1", "?student_id=nope"]) {
      expect({ query, ...failure(await list(admin, quiz.id, query)) }).toEqual({ query, status: 400, error: "invalid_params" });
    }
  });

  it("students and curators without view_analytics are refused", async () => {
    const { school, quiz, anna } = await quizWithAttempts();
    const student = await signedIn(school, { role: "student" });
    const curator = await signedIn(school, curatorWith({ can_manage_courses: true, can_manage_groups: true }));
    expect(failure(await list(student, quiz.id))).toEqual({ status: 403, error: "forbidden" });
    expect(failure(await list(curator, quiz.id, `?student_id=${anna.id}`))).toEqual({ status: 403, error: "forbidden" });
  });

  it("answers in two D1 round trips, the guard's included, for admins and restricted curators", async () => {
    const { school, admin, quiz } = await quizWithAttempts();
    const restricted = await signedIn(school, curatorWith({ can_view_analytics: true }));
    for (const member of [admin, restricted]) {
      const counter = roundTripD1(await schoolD1(member.tenantId));
      const response = await app.request(
        `https://api.lms.localhost/api/v1/t/quizzes/${quiz.id}/attempts?pending_review=false&include_admin_attempts=true`,
        { headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain } },
        envWith(counter.db),
      );
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      expect(counter.roundTrips()).toBe(2);
    }
  });
});
