import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { addGroupCurator, addMember, as, assignIndividualCurator, createGroup, curatorWith, signedIn, unknownId } from "../../helpers/users";
import { quizForStudent, read, save, started, submit, tokenFor } from "./helpers";

/** Saving answers (merge, client_seq, payload checks) and who may read an attempt. */

const savedOf = async (member: Parameters<typeof read>[0], id: string) => ((await read(member, id)).body.data.saved_answers ?? []) as { question_id: string; payload: unknown }[];

describe("saving answers", () => {
  it("merges by question: a later save replaces that question's answer and keeps the others", async () => {
    const { student, quiz } = await quizForStudent({ questions: [{ type: "single" }, { type: "free_text" }] });
    const [single, text] = quiz.questions;
    const id = await started(student, quiz.id);
    await save(student, id, [{ question_id: single!.id, payload: { answer_ids: [single!.answerIds[1]] } }, { question_id: text!.id, payload: { text: "one" } }]);
    await save(student, id, [{ question_id: text!.id, payload: { text: "two" } }]);
    expect(await savedOf(student, id)).toEqual([
      expect.objectContaining({ question_id: single!.id, payload: { answer_ids: [single!.answerIds[1]] } }),
      expect.objectContaining({ question_id: text!.id, payload: { text: "two" } }),
    ]);
  });

  it("client_seq: the highest wins, a stale replay is ignored, a replay of the same save is harmless, an item without one is newest", async () => {
    const { student, quiz } = await quizForStudent({ questions: [{ type: "free_text" }] });
    const q = quiz.questions[0]!.id;
    const id = await started(student, quiz.id);
    const put = (text: string, client_seq?: number) => save(student, id, [{ question_id: q, payload: { text }, ...(client_seq === undefined ? {} : { client_seq }) }]);
    const counts = async (res: ReturnType<typeof put>) => {
      const { saved, ignored } = (await res).body.data;
      return [saved, ignored];
    };

    expect(await counts(put("v5", 5))).toEqual([1, 0]);
    expect(await counts(put("v3 late", 3))).toEqual([0, 1]);
    expect(await counts(put("v5 replay", 5))).toEqual([0, 1]);
    expect(await savedOf(student, id)).toEqual([expect.objectContaining({ payload: { text: "v5" } })]);
    expect(await counts(put("v6", 6))).toEqual([1, 0]);
    expect(await counts(put("no seq"))).toEqual([1, 0]);
    expect(await savedOf(student, id)).toEqual([expect.objectContaining({ payload: { text: "no seq" } })]);
    // An older numbered save arriving after the unnumbered one still loses.
    expect(await counts(put("v4 late", 4))).toEqual([0, 1]);
    expect(await counts(put("v7", 7))).toEqual([1, 0]);
    // Within one save, items apply in order.
    const both = await save(student, id, [
      { question_id: q, payload: { text: "v9" }, client_seq: 9 },
      { question_id: q, payload: { text: "v8" }, client_seq: 8 },
    ]);
    expect([both.body.data.saved, both.body.data.ignored]).toEqual([1, 1]);
    expect(await savedOf(student, id)).toEqual([expect.objectContaining({ payload: { text: "v9" } })]);

    const done = await submit(student, id);
    expect(done.body.data.saved_answers).toEqual([expect.objectContaining({ payload: { text: "v9" } })]);
  });

  it("every payload key of the contract is accepted for its type", async () => {
    const { school, student, quiz } = await quizForStudent({
      questions: [{ type: "single" }, { type: "multiple", answers: [{ isCorrect: true }, { isCorrect: true }] }, { type: "free_text" }, { type: "matching" }],
    });
    const [single, multiple, text, matching] = quiz.questions;
    const id = await started(student, quiz.id);
    const token = await tokenFor(school.id, matching!.id, matching!.matchIds[0]!);
    const variants = [
      [single!.id, { answer_ids: [single!.answerIds[0]] }],
      [single!.id, { selected_answer_id: single!.answerIds[0] }],
      [single!.id, { selected_option_id: single!.answerIds[0] }],
      [multiple!.id, { answer_ids: multiple!.answerIds }],
      [multiple!.id, { selected_answer_ids: multiple!.answerIds }],
      [multiple!.id, { selected_option_ids: multiple!.answerIds }],
      [text!.id, { text: "answer" }],
      [matching!.id, { pairs: [{ left_id: matching!.matchIds[0], right_id: token }] }],
    ] as const;
    for (const [question_id, payload] of variants) expect((await save(student, id, [{ question_id, payload }])).body.data.saved).toBe(1);
  });

  it("400 invalid_request_body: a payload without a key of its type, of the wrong shape, or naming another question's right side; nothing is saved", async () => {
    const { school, student, quiz } = await quizForStudent({ questions: [{ type: "single" }, { type: "matching" }, { type: "matching" }] });
    const [single, matching, otherMatching] = quiz.questions;
    const id = await started(student, quiz.id);
    const foreign = await tokenFor(school.id, otherMatching!.id, otherMatching!.matchIds[0]!);
    const otherSchool = await tokenFor((await quizForStudent()).school.id, matching!.id, matching!.matchIds[0]!);
    const bad = [
      [single!.id, { text: "A" }],
      [single!.id, { answer_ids: "not-a-list" }],
      [single!.id, { selected_answer_id: "not-an-id" }],
      [matching!.id, { pairs: [{ left_id: matching!.matchIds[0], right_id: matching!.matchIds[0] }] }],
      [matching!.id, { pairs: [{ left_id: matching!.matchIds[0], right_id: foreign }] }],
      [matching!.id, { pairs: [{ left_id: matching!.matchIds[0], right_id: otherSchool }] }],
      [matching!.id, { pairs: [{ left_id: matching!.matchIds[0] }] }],
    ] as const;
    for (const [question_id, payload] of bad) {
      const res = await save(student, id, [{ question_id: single!.id, payload: { answer_ids: [single!.answerIds[0]] } }, { question_id, payload }]);
      expect(failure(res)).toEqual({ status: 400, error: "invalid_request_body" });
    }
    for (const body of [{}, { answers: [] }, { answers: [{ question_id: single!.id }] }, { answers: [{ question_id: single!.id, payload: [] }] }, { answers: [{ question_id: single!.id, payload: {}, client_seq: -1 }] }]) {
      expect(failure(await as(student, `/t/attempts/${id}/answers`, { method: "POST", body }))).toEqual({ status: 400, error: "invalid_request_body" });
    }
    expect(await savedOf(student, id)).toEqual([]);
  });

  it("tokens change on every read of the quiz and still open for their own question", async () => {
    const { school, student, quiz } = await quizForStudent({ questions: [{ type: "matching" }] });
    const matching = quiz.questions[0]!;
    const id = await started(student, quiz.id);
    const first = await tokenFor(school.id, matching.id, matching.matchIds[1]!);
    const second = await tokenFor(school.id, matching.id, matching.matchIds[1]!);
    expect(first).not.toBe(second);
    await save(student, id, [{ question_id: matching.id, payload: { pairs: [{ left_id: matching.matchIds[1], right_id: first }] } }]);
    await save(student, id, [{ question_id: matching.id, payload: { pairs: [{ left_id: matching.matchIds[0], right_id: second }, { left_id: matching.matchIds[1], right_id: first }] } }]);
    const done = (await submit(student, id)).body.data;
    expect(done.saved_answers[0].payload.pairs).toEqual([
      { left_id: matching.matchIds[0], right_id: matching.matchIds[1] },
      { left_id: matching.matchIds[1], right_id: matching.matchIds[1] },
    ]);
    expect(done).toMatchObject({ score: "0.00" });
  });

  it("400 question_not_in_quiz: a question of another quiz or a deleted one; nothing of the save is kept", async () => {
    const { school, student, quiz } = await quizForStudent({ questions: [{ type: "single" }, { type: "single", deleted: true }] });
    const other = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const id = await started(student, quiz.id);
    const keep = { question_id: quiz.questions[0]!.id, payload: { answer_ids: [] } };
    for (const question_id of [other.questions[0]!.id, quiz.questions[1]!.id, unknownId()]) {
      expect(failure(await save(student, id, [keep, { question_id, payload: { answer_ids: [] } }]))).toEqual({ status: 400, error: "question_not_in_quiz" });
    }
    expect(await savedOf(student, id)).toEqual([]);
  });

  it("404 attempt_not_found: another user's attempt (staff included) or no such attempt; 400 invalid_id_format", async () => {
    const { school, admin, student, quiz } = await quizForStudent();
    const id = await started(student, quiz.id);
    const classmate = await signedIn(school, { role: "student" });
    const answer = [{ question_id: quiz.questions[0]!.id, payload: { answer_ids: [] } }];
    for (const who of [classmate, admin]) {
      expect(failure(await save(who, id, answer))).toEqual({ status: 404, error: "attempt_not_found" });
      expect(failure(await submit(who, id))).toEqual({ status: 404, error: "attempt_not_found" });
    }
    expect(failure(await save(student, unknownId(), answer))).toEqual({ status: 404, error: "attempt_not_found" });
    expect(failure(await submit(student, unknownId()))).toEqual({ status: 404, error: "attempt_not_found" });
    expect(failure(await save(student, "nope", answer))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(failure(await submit(student, "nope"))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(failure(await read(student, "nope"))).toEqual({ status: 400, error: "invalid_id_format" });
    expect((await read(student, id)).body.data.status).toBe("in_progress");
  });

  it("404 quiz_not_found: the quiz was deleted during the attempt (submit learns it, later saves too); answers saved before are kept", async () => {
    const { student, quiz } = await quizForStudent({ questions: [{ type: "free_text" }] });
    const id = await started(student, quiz.id);
    const answer = [{ question_id: quiz.questions[0]!.id, payload: { text: "kept" } }];
    await save(student, id, answer);
    await db().update(schema.quizzes).set({ deletedAt: Date.now() }).where(eq(schema.quizzes.id, quiz.id));
    expect(failure(await submit(student, id))).toEqual({ status: 404, error: "quiz_not_found" });
    expect(failure(await save(student, id, answer))).toEqual({ status: 404, error: "quiz_not_found" });
    expect((await read(student, id)).body.data).toMatchObject({ status: "in_progress", saved_answers: [expect.objectContaining({ payload: { text: "kept" } })] });
  });
});

describe("reading an attempt", () => {
  it("the owner, admins and curators in scope; other students, other schools and restricted curators outside scope get 404", async () => {
    const { school, admin, student, quiz } = await quizForStudent();
    const id = await started(student, quiz.id);
    const classmate = await signedIn(school, { role: "student" });
    const restricted = await signedIn(school, curatorWith({ can_view_analytics: true }));
    const ownCurator = await signedIn(school, curatorWith({}));
    const groupCurator = await signedIn(school, curatorWith({}));
    const manager = await signedIn(school, curatorWith({ can_manage_groups: true }));
    await assignIndividualCurator(student.id, ownCurator.id);
    const group = await createGroup(school.id);
    await addMember(group, student.id);
    await addGroupCurator(group, groupCurator.id);
    const stranger = (await quizForStudent()).admin;

    for (const who of [student, admin, ownCurator, groupCurator, manager]) expect((await read(who, id)).body.data.id).toBe(id);
    for (const who of [classmate, restricted, stranger]) expect(failure(await read(who, id))).toEqual({ status: 404, error: "attempt_not_found" });
    expect(failure(await read(student, unknownId()))).toEqual({ status: 404, error: "attempt_not_found" });

    // A staff attempt is visible to admins, not to a restricted curator.
    const staffAttempt = await started(admin, quiz.id);
    expect((await read(manager, staffAttempt)).status).toBe(200);
    expect(failure(await read(ownCurator, staffAttempt))).toEqual({ status: 404, error: "attempt_not_found" });
  });
});
