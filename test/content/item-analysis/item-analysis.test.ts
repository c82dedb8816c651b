import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { setClockForTests } from "../../../src/core/lib/clock";
import { createUser, db } from "../../helpers/factories";
import { countedRequest } from "../../helpers/counted";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { assignIndividualCurator, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { itemAnalysis, recompute, writeAttempts, type AnswerSpec, type PreparedAttempt } from "./helpers";

/**
 * GET /t/quizzes/:id/item-analysis (05 section 2): exact figures on prepared attempts, computed
 * by hand below (and checked with an independent script, not with src), the 20-attempt rule, random
 * forms, the snapshot's freshness and the failures.
 */

const T1 = Date.parse("2026-03-02T10:00:00.000Z");
const T2 = Date.parse("2026-03-02T10:05:00.000Z");
/** The auth check, then one batch of six: the quiz, its questions, their answers, the snapshot and the two figure sums. */
const COUNTS_FRESH = { prepare: 7, batch: 1, exec: 0 };
/** The same, then one page: a batch of the page's attempts and their answers. */
const COUNTS_LIVE = { prepare: 9, batch: 2, exec: 0 };

/**
 * Set A: Q1 single (A correct, B, C; 1 point), Q2 multiple partial (P, Q correct, R; 2 points),
 * Q3 free text (1 point). 22 settled attempts of 22 students, by rank (best first). Q1 is the
 * answer chosen ("-" left blank, no answer row), Q2 the points (2: P+Q, 1: P, 0: R), Q3 the points.
 *
 * | rank | Q1 | Q2 | Q3 | total |   | rank | Q1 | Q2 | Q3 | total |
 * |------|----|----|----|-------|---|------|----|----|----|-------|
 * | 1    | A  | 2  | 1  | 4     |   | 12   | B  | 1  | 1  | 2     |
 * | 2    | A  | 2  | 1  | 4     |   | 13   | A  | 1  | 0  | 2     |
 * | 3    | A  | 2  | 0  | 3     |   | 14   | -  | 2  | 0  | 2     |
 * | 4    | B  | 2  | 1  | 3     |   | 15   | A  | 0  | 1  | 2     |
 * | 5    | A  | 1  | 1  | 3     |   | 16   | C  | 1  | 1  | 2     |
 * | 6    | A  | 1  | 0  | 2     |   | 17   | A  | 1  | 0  | 2     |
 * | 7    | A  | 0  | 1  | 2     |   | 18   | A  | 0  | 0  | 1     |
 * | 8    | B  | 2  | 0  | 2     |   | 19   | B  | 1  | 0  | 1     |
 * | 9    | C  | 1  | 1  | 2     |   | 20   | C  | 0  | 1  | 1     |
 * | 10   | A  | 1  | 0  | 2     |   | 21   | -  | 0  | 0  | 0     |
 * | 11   | A  | 0  | 1  | 2     |   | 22   | B  | 0  | 0  | 0     |
 *
 * n = 22; the groups are floor(22 × 27 %) = 5 attempts: ranks 1-5 and 18-22 (totals 3 above rank 6's
 * 2, and 1 below rank 17's 2, so no tie crosses a group's edge).
 * - Q1: 12 A of 22 → facility 0.5454 = "0.55"; top 4 right, bottom 1 → (4 − 1) / 5 = "0.60";
 *   shares A 12/22 "0.55", B 5/22 "0.23", C 3/22 "0.14".
 * - Q2: 6 × 2 + 9 × 1 = 21 of 44 points → 0.4772 = "0.48"; top 9 points, bottom 1 → (9 − 1) / 10 =
 *   "0.80"; P chosen 15 ("0.68"), Q 6 ("0.27"), R 7 ("0.32").
 * - Q3: 11 of 22 → "0.50"; top 4, bottom 1 → "0.60".
 * - Point-biserial (item against total minus item, Pearson): Q1 −0.0466 → "-0.05", Q2 −0.0801 →
 *   "-0.08", Q3 −0.0510 → "-0.05" (the middle ranks all total 2, so an item and its rest move
 *   against each other there).
 * - KR-20 = 3/2 × (1 − (σ²Q1 + σ²Q2 + σ²Q3) / σ²total) with population variances in points:
 *   σ²Q1 = 0.2479, σ²Q2 = 0.5868, σ²Q3 = 0.25, σ²total = 0.9669 → −0.1302 → "-0.13".
 */
const SET_A: [q1: "A" | "B" | "C" | "-", q2: 0 | 1 | 2, q3: 0 | 1][] = [
  ["A", 2, 1],
  ["A", 2, 1],
  ["A", 2, 0],
  ["B", 2, 1],
  ["A", 1, 1],
  ["A", 1, 0],
  ["A", 0, 1],
  ["B", 2, 0],
  ["C", 1, 1],
  ["A", 1, 0],
  ["A", 0, 1],
  ["B", 1, 1],
  ["A", 1, 0],
  ["-", 2, 0],
  ["A", 0, 1],
  ["C", 1, 1],
  ["A", 1, 0],
  ["A", 0, 0],
  ["B", 1, 0],
  ["C", 0, 1],
  ["-", 0, 0],
  ["B", 0, 0],
];
/** The ranks (0-based) in the order the attempts are written, so rank and id order differ. */
const WRITE_ORDER = [7, 0, 15, 3, 21, 10, 1, 18, 12, 5, 20, 8, 2, 16, 11, 19, 4, 13, 6, 17, 9, 14];

async function preparedSetA() {
  const { school, admin } = await schoolWithAdmin();
  const quiz = await insertQuiz(school.id, {
    questions: [
      { type: "single", answers: [{ text: "A", isCorrect: true }, { text: "B" }, { text: "C" }] },
      { type: "multiple", pointsHundredths: 200, scoringMode: "partial", answers: [{ text: "P", isCorrect: true }, { text: "Q", isCorrect: true }, { text: "R" }] },
      { type: "free_text" },
    ],
  });
  const [q1, q2, q3] = quiz.questions as [(typeof quiz.questions)[0], (typeof quiz.questions)[0], (typeof quiz.questions)[0]];
  const [a, b, c] = q1.answerIds as [string, string, string];
  const [p, q, r] = q2.answerIds as [string, string, string];
  const students: Awaited<ReturnType<typeof createUser>>[] = [];
  for (let rank = 0; rank < SET_A.length; rank += 1) students.push(await createUser(school.id, { role: "student" }));
  const attemptOf = (rank: number, userId = students[rank]!.id): PreparedAttempt => {
    const [choice, two, three] = SET_A[rank]!;
    const answers: AnswerSpec[] = [];
    if (choice !== "-") answers.push([q1.id, choice === "A" ? 100 : 0, { answer_ids: [{ A: a, B: b, C: c }[choice]] }]);
    answers.push([q2.id, two * 100, { answer_ids: two === 2 ? [p, q] : two === 1 ? [p] : [r] }]);
    answers.push([q3.id, three * 100, { text: three ? "answer" : "wrong" }]);
    return { userId, scoreHundredths: (choice === "A" ? 100 : 0) + two * 100 + three * 100, maxScoreHundredths: 400, answers };
  };
  await writeAttempts(school.id, quiz.id, WRITE_ORDER.map((rank) => attemptOf(rank)));

  // Never counted: a staff attempt, one waiting for a review, one in progress, a deleted student's.
  const gone = await createUser(school.id, { role: "student" });
  await writeAttempts(school.id, quiz.id, [
    { ...attemptOf(0, admin.id), actorRole: "admin" },
    { ...attemptOf(21, students[0]!.id), pendingReview: true },
    { ...attemptOf(21, students[1]!.id), status: "in_progress" },
    attemptOf(21, gone.id),
  ]);
  await db().update(schema.users).set({ deletedAt: Date.now() }).where(eq(schema.users.id, gone.id));
  return { school, admin, quiz, ids: { q1: q1.id, q2: q2.id, q3: q3.id, a, b, c, p, q, r }, students };
}

const option = (answer_id: string, chosen: number, share: string | null) => ({ answer_id, chosen, share });

describe("GET /t/quizzes/:id/item-analysis", () => {
  it("exact figures on the prepared set: facility, discrimination, point-biserial, option shares and KR-20", async () => {
    setClockForTests({ now: () => T1 });
    const { school, admin, quiz, ids } = await preparedSetA();
    const analyst = await signedIn(school, curatorWith({ can_view_analytics: true, can_manage_groups: true }));
    const expected = {
      quiz_id: quiz.id,
      attempts: 22,
      kr20: "-0.13",
      computed_at: "2026-03-02T10:00:00.000Z",
      items: [
        {
          question_id: ids.q1,
          type: "single",
          n: 22,
          facility: "0.55",
          discrimination: "0.60",
          point_biserial: "-0.05",
          insufficient_data: false,
          options: [option(ids.a, 12, "0.55"), option(ids.b, 5, "0.23"), option(ids.c, 3, "0.14")],
        },
        {
          question_id: ids.q2,
          type: "multiple",
          n: 22,
          facility: "0.48",
          discrimination: "0.80",
          point_biserial: "-0.08",
          insufficient_data: false,
          options: [option(ids.p, 15, "0.68"), option(ids.q, 6, "0.27"), option(ids.r, 7, "0.32")],
        },
        { question_id: ids.q3, type: "free_text", n: 22, facility: "0.50", discrimination: "0.60", point_biserial: "-0.05", insufficient_data: false },
      ],
    };
    for (const caller of [admin, analyst]) {
      const res = await itemAnalysis(caller, quiz.id);
      expect({ status: res.status, data: res.body.data }).toEqual({ status: 200, data: expected });
    }
  });

  it("a restricted curator counts their own students: under 20 attempts every figure is null with insufficient_data", async () => {
    setClockForTests({ now: () => T1 });
    const { school, quiz, ids, students } = await preparedSetA();
    const curator = await signedIn(school, curatorWith({ can_view_analytics: true }));
    // Ranks 1, 2 and 22: Q1 A, A, B; Q2 P+Q, P+Q, R.
    for (const rank of [0, 1, 21]) await assignIndividualCurator(students[rank]!.id, curator.id);
    const res = await itemAnalysis(curator, quiz.id);
    const empty = { facility: null, discrimination: null, point_biserial: null, insufficient_data: true };
    expect({ status: res.status, data: res.body.data }).toEqual({
      status: 200,
      data: {
        quiz_id: quiz.id,
        attempts: 3,
        kr20: null,
        computed_at: "2026-03-02T10:00:00.000Z",
        items: [
          { question_id: ids.q1, type: "single", n: 3, ...empty, options: [option(ids.a, 2, null), option(ids.b, 1, null), option(ids.c, 0, null)] },
          { question_id: ids.q2, type: "multiple", n: 3, ...empty, options: [option(ids.p, 2, null), option(ids.q, 2, null), option(ids.r, 1, null)] },
          { question_id: ids.q3, type: "free_text", n: 3, ...empty },
        ],
      },
    });
  });

  /**
   * Set B: five single questions (A correct, B wrong; 1 point each) drawn 3 per attempt. 24
   * attempts; attempt i (0-23) drew Q1, Q2 and Q3 (i < 8), Q4 (i < 16) or Q5 (i < 20); attempts 20-23
   * drew Q1 with Q3+Q5, Q3+Q5, Q4+Q5, Q4+Q5. Attempt i is right on Qj when (7i + 3j) mod 5 < 3.
   * So Q1 n = 24, Q2 20, Q3 10, Q4 10, Q5 8. Totals (out of 3): 3 for attempts 12 and 21; 1 for 0,
   * 5, 8, 11, 13, 19, 20, 23; 2 for the rest. Ranked by percent, equal ones earlier attempt first.
   * - Q1: right in 14 of 24 → "0.58"; groups of floor(24 × 27 %) = 6: top 12, 21, 1, 2, 3, 4 (5
   *   right), bottom 8, 11, 13, 19, 20, 23 (2 right) → (5 − 2) / 6 = "0.50"; r = −0.3568 → "-0.36".
   * - Q2: right in 12 of 20 → "0.60"; groups of 5: top 12, 1, 2, 3, 4 and bottom 5, 8, 11, 13, 19,
   *   3 right each → "0.00"; r = −0.6745 → "-0.67".
   * - Q3, Q4, Q5: under 20 attempts; choices counted (A 5/B 5, A 6/B 4, A 5/B 3), no figure.
   * - KR-20: null, the quiz draws 3 of its 5 questions.
   */
  it("random forms: an item's n is the attempts that drew it; KR-20 is null", async () => {
    setClockForTests({ now: () => T1 });
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id, {
      questionsPerAttempt: 3,
      shuffleQuestions: true,
      questions: Array.from({ length: 5 }, () => ({ type: "single" as const })),
    });
    const question = (j: number) => quiz.questions[j - 1]!;
    const forms = Array.from({ length: 24 }, (_, i) =>
      i < 20 ? [1, 2, i < 8 ? 3 : i < 16 ? 4 : 5] : [1, ...([[3, 5], [3, 5], [4, 5], [4, 5]][i - 20] as number[])],
    );
    const attempts: PreparedAttempt[] = [];
    for (const [i, form] of forms.entries()) {
      const student = await createUser(school.id, { role: "student" });
      const answers = form.map((j): AnswerSpec => {
        const right = (7 * i + 3 * j) % 5 < 3;
        return [question(j).id, right ? 100 : 0, { answer_ids: [question(j).answerIds[right ? 0 : 1]] }];
      });
      attempts.push({
        userId: student.id,
        scoreHundredths: answers.reduce((sum, answer) => sum + answer[1], 0),
        maxScoreHundredths: 300,
        answers,
        formQuestionIds: form.map((j) => question(j).id),
      });
    }
    await writeAttempts(school.id, quiz.id, attempts);
    const res = await itemAnalysis(admin, quiz.id);
    const item = (j: number, n: number, figures: [string, string, string] | null, chosen: [[number, string | null], [number, string | null]]) => ({
      question_id: question(j).id,
      type: "single",
      n,
      facility: figures?.[0] ?? null,
      discrimination: figures?.[1] ?? null,
      point_biserial: figures?.[2] ?? null,
      insufficient_data: figures === null,
      options: [
        option(question(j).answerIds[0]!, ...chosen[0]),
        option(question(j).answerIds[1]!, ...chosen[1]),
      ],
    });
    expect({ status: res.status, data: res.body.data }).toEqual({
      status: 200,
      data: {
        quiz_id: quiz.id,
        attempts: 24,
        kr20: null,
        computed_at: "2026-03-02T10:00:00.000Z",
        items: [
          // Shares: Q1 14/24 and 10/24, Q2 12/20 and 8/20.
          item(1, 24, ["0.58", "0.50", "-0.36"], [[14, "0.58"], [10, "0.42"]]),
          item(2, 20, ["0.60", "0.00", "-0.67"], [[12, "0.60"], [8, "0.40"]]),
          item(3, 10, null, [[5, null], [5, null]]),
          item(4, 10, null, [[6, null], [4, null]]),
          item(5, 8, null, [[5, null], [3, null]]),
        ],
      },
    });
  });

  it("19 attempts leave the figures null, the 20th gives them", async () => {
    setClockForTests({ now: () => T1 });
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "free_text" }, { type: "free_text" }] });
    const [q1, q2] = quiz.questions.map((question) => question.id) as [string, string];
    // Attempt i: Q1 right when i is even, Q2 right when i < 10.
    const attempt = async (i: number): Promise<PreparedAttempt> => {
      const student = await createUser(school.id, { role: "student" });
      const x1 = i % 2 === 0 ? 100 : 0;
      const x2 = i < 10 ? 100 : 0;
      return { userId: student.id, scoreHundredths: x1 + x2, maxScoreHundredths: 200, answers: [[q1, x1, { text: "a" }], [q2, x2, { text: "b" }]] };
    };
    const first = [];
    for (let i = 0; i < 19; i += 1) first.push(await attempt(i));
    await writeAttempts(school.id, quiz.id, first);
    const before = await itemAnalysis(admin, quiz.id);
    expect(before.body.data).toMatchObject({ attempts: 19, kr20: null, items: [{ n: 19, facility: null, insufficient_data: true }, { n: 19, facility: null, insufficient_data: true }] });
    await writeAttempts(school.id, quiz.id, [await attempt(19)]);
    const after = await itemAnalysis(admin, quiz.id);
    // 20 attempts: Q1 right in 10 (even i), Q2 in 10 (i < 10). Groups of 5: totals 2 for i = 0, 2, 4,
    // 6, 8; 1 for the odd i < 10 and the even i ≥ 10; 0 for the odd i ≥ 10. Top = i 0, 2, 4, 6, 8
    // (both right), bottom = i 11, 13, 15, 17, 19 (both wrong): discrimination 1.00 for both.
    // Q1's rest is Q2: r(Q1, Q2) = 0 (5 of each combination) → "0.00". KR-20 = 2 × (1 − 0.5 / 0.5) = "0.00".
    expect(after.body.data).toMatchObject({
      attempts: 20,
      kr20: "0.00",
      items: [
        { n: 20, facility: "0.50", discrimination: "1.00", point_biserial: "0.00", insufficient_data: false },
        { n: 20, facility: "0.50", discrimination: "1.00", point_biserial: "0.00", insufficient_data: false },
      ],
    });
  });

  it("a large quiz reads its snapshot: fresh while the figures are unchanged, the last one with a recompute asked for when stale", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const [question] = quiz.questions;
    const students = [await createUser(school.id, { role: "student" }), await createUser(school.id, { role: "student" })];
    // 201 attempts (one above what a read computes itself): attempt i right when i is a multiple of 3.
    const attempt = (i: number): PreparedAttempt => {
      const right = i % 3 === 0;
      return { userId: students[i % 2]!.id, scoreHundredths: right ? 100 : 0, maxScoreHundredths: 100, answers: [[question!.id, right ? 100 : 0, { answer_ids: [question!.answerIds[right ? 0 : 1]] }]] };
    };
    await writeAttempts(school.id, quiz.id, Array.from({ length: 201 }, (_, i) => attempt(i)));
    const snapshotRow = async () =>
      (
        await db()
          .select()
          .from(schema.itemAnalysisSnapshots)
          .where(and(eq(schema.itemAnalysisSnapshots.tenantId, school.id), eq(schema.itemAnalysisSnapshots.quizId, quiz.id)))
      )[0];

    setClockForTests({ now: () => T1 });
    await recompute(school.id, quiz.id);
    // 67 of 201 right (0, 3, …, 198): 0.3333 → "0.33"; top 54 all right, bottom 54 all wrong.
    const fresh = { attempts: 201, computed_at: "2026-03-02T10:00:00.000Z", items: [{ n: 201, facility: "0.33", discrimination: "1.00", point_biserial: null }] };
    setClockForTests({ now: () => T2 });
    expect((await itemAnalysis(admin, quiz.id)).body.data).toMatchObject(fresh);
    expect(await snapshotRow()).toMatchObject({ computedAt: T1, requestedAt: null });

    // One more attempt: the kept figures change, the read answers the last snapshot and asks for a recompute.
    await writeAttempts(school.id, quiz.id, [attempt(201)]);
    expect((await itemAnalysis(admin, quiz.id)).body.data).toMatchObject(fresh);
    expect(await snapshotRow()).toMatchObject({ computedAt: T1, requestedAt: T2 });
    // Within the debounce a second stale read asks nothing more.
    setClockForTests({ now: () => T2 + 59_000 });
    await itemAnalysis(admin, quiz.id);
    expect(await snapshotRow()).toMatchObject({ requestedAt: T2 });

    await recompute(school.id, quiz.id);
    // 68 of 202 right: 0.3366 → "0.34".
    expect((await itemAnalysis(admin, quiz.id)).body.data).toMatchObject({
      attempts: 202,
      computed_at: "2026-03-02T10:05:59.000Z",
      items: [{ n: 202, facility: "0.34", discrimination: "1.00" }],
    });
    expect(await snapshotRow()).toMatchObject({ computedAt: T2 + 59_000, requestedAt: null });
  });

  it("statements: a fresh snapshot is the guard's read and one batch; a stale small quiz adds one page", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "free_text" }] });
    const [q1, q2] = quiz.questions.map((question) => question.id) as [string, string];
    const student = await createUser(school.id, { role: "student" });
    const attempt: PreparedAttempt = { userId: student.id, scoreHundredths: 100, maxScoreHundredths: 200, answers: [[q1, 100, {}], [q2, 0, { text: "x" }]] };
    await writeAttempts(school.id, quiz.id, [attempt]);
    await recompute(school.id, quiz.id);
    const path = `/t/quizzes/${quiz.id}/item-analysis`;
    expect(await countedRequest(admin, path)).toEqual({ status: 200, counts: COUNTS_FRESH });
    await writeAttempts(school.id, quiz.id, [attempt]);
    expect(await countedRequest(admin, path)).toEqual({ status: 200, counts: COUNTS_LIVE });
  });

  it("failures: a malformed id, an unknown, deleted or other school's quiz", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const deleted = await insertQuiz(school.id, { deleted: true });
    const foreign = await insertQuiz(other.school.id, { questions: [{ type: "single" }] });
    expect(failure(await itemAnalysis(admin, "not-a-uuid"))).toEqual({ status: 400, error: "invalid_id_format" });
    for (const id of [unknownId(), deleted.id, foreign.id]) {
      expect(failure(await itemAnalysis(admin, id))).toEqual({ status: 404, error: "quiz_not_found" });
    }
  });
});
