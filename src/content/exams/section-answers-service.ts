import { sql, type SQL } from "drizzle-orm";
import { batchable, insertWhere, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError, coreErrors } from "../../core/http/errors";
import { iso } from "../../core/lib/clock";
import { uuidv7 } from "../../core/lib/ids";
import { examSectionAttempts, quizAttempts } from "../../db/schema";
import { journal, journalStart } from "../attempts/journal";
import { attemptsErrors } from "../attempts/errors";
import { drawForm, drawsForm, formColumns, formOfRow, formView, newFormSeed, type FormSettings } from "../attempts/form";
import { remainingSeconds } from "../attempts/journal-state";
import { ATTEMPT_COLUMNS, type AttemptRow } from "../attempts/present";
import type { SaveAnswersBody } from "../attempts/schemas";
import { presentQuizDetail } from "../quizzes/present";
import { presentQuestionRows, questionQueries, type QuestionRows } from "../quizzes/question-present";
import { liveQuizDetailStatement, type QuizDetailRow } from "../quizzes/quiz-read";
import { EXAM_ATTEMPT_COLUMNS, examAttemptSql, sectionAttemptsSql, type ExamAttemptRow, type SectionAttemptRow } from "./attempt-present";
import { examsErrors } from "./errors";
import { finishIfDue } from "./exam-attempt-service";
import { finishClosed } from "./exam-finalize";
import { timer, timerStart } from "./timer";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * Sections of an exam attempt (docs/decisions/exams.md, "Exam attempts"). `go` opens a section: its quiz
 * attempt (a `quiz_attempts` row with `exam_attempt_id`, the exam's deadline) is created once by
 * conditional INSERTs, so concurrent `go`s for one section make one, and its journal is started;
 * sections may be visited in any order and again until the deadline. A section save is one D1
 * read (which quiz attempt the section's answers go to) and one call to that attempt's journal,
 * which keeps the answers with the quiz attempts' merge and `client_seq` rules: nothing is written
 * to D1 until the attempt finishes.
 */

interface LiveSection extends FormSettings {
  id: string;
  title: string;
  position: number;
  quiz_id: string;
  /** JSON array of the quiz's live question ids in quiz order (the draw's pool). */
  question_ids: string;
}

/** The owner's attempt: other people's attempts do not exist for these calls. */
const ownedBy = (ctx: SchoolCtx) => sql`ea.user_id = ${ctx.actor.userId}`;

/** The live sections of the attempt's exam (alias `s`) in position order: a section index counts in this order. */
function liveSectionsSql(ctx: SchoolCtx, examAttemptId: string) {
  return liveSectionsFromSql(ctx, examAttemptId, sql``);
}

/** The same, with `join` after the sections (columns of the section's quiz). */
function liveSectionsFromSql(ctx: SchoolCtx, examAttemptId: string, join: SQL) {
  return sql`FROM exam_sections s ${join} WHERE ${liveInSchool("s", ctx.tenantId)}
    AND s.exam_id = (SELECT sx.exam_id FROM exam_attempts sx WHERE sx.id = ${examAttemptId} AND ${inSchool("sx", ctx.tenantId)})
    ORDER BY s.position, s.id`;
}

/** The section's quiz attempt in the exam attempt (created once). */
function sectionQuizAttemptSql(ctx: SchoolCtx, examAttemptId: string, sectionId: string): BatchItem {
  return batchable(
    ctx,
    sql`SELECT ${ATTEMPT_COLUMNS} FROM exam_section_attempts esa
        JOIN quiz_attempts a ON a.id = esa.quiz_attempt_id AND ${inSchool("a", ctx.tenantId)}
      WHERE ${inSchool("esa", ctx.tenantId)} AND esa.exam_attempt_id = ${examAttemptId} AND esa.exam_section_id = ${sectionId}`,
  );
}

/** The conditional INSERTs of a section's first `go`: the quiz attempt, then the section attempt naming it. */
function openSectionStatements(ctx: SchoolCtx, row: ExamAttemptRow, section: LiveSection, now: number): BatchItem[] {
  const quizAttemptId = uuidv7(now);
  // A section draws its form at its first `go`, as a quiz does at start (docs/decisions/quizzes.md, "Random forms").
  const form = drawsForm(section) ? drawForm(section, JSON.parse(section.question_ids) as string[], newFormSeed()) : null;
  const notOpened = sql`NOT EXISTS (SELECT 1 FROM exam_section_attempts x WHERE ${inSchool("x", ctx.tenantId)} AND x.exam_attempt_id = ${row.id} AND x.exam_section_id = ${section.id})`;
  return [
    insertWhere(
      ctx,
      quizAttempts,
      {
        id: quizAttemptId,
        tenantId: ctx.tenantId,
        quizId: section.quiz_id,
        userId: row.user_id,
        actorRole: row.actor_role,
        status: "in_progress",
        examAttemptId: row.id,
        startedAt: now,
        deadlineAt: row.deadline_at,
        ...formColumns(form),
        createdAt: now,
        updatedAt: now,
      },
      sql`${notOpened} AND EXISTS (SELECT 1 FROM exam_attempts y WHERE y.id = ${row.id} AND ${inSchool("y", ctx.tenantId)} AND y.status = 'in_progress')`,
    ),
    insertWhere(
      ctx,
      examSectionAttempts,
      { id: uuidv7(now), tenantId: ctx.tenantId, examAttemptId: row.id, examSectionId: section.id, quizAttemptId, position: section.position, createdAt: now },
      sql`${notOpened} AND EXISTS (SELECT 1 FROM quiz_attempts z WHERE z.id = ${quizAttemptId} AND ${inSchool("z", ctx.tenantId)})`,
    ),
  ];
}

/** A write refused because the time is up: the attempt is finished (by this request if nobody did), then 409. */
async function timeIsUp(ctx: SchoolCtx, row: ExamAttemptRow): Promise<never> {
  await finishIfDue(ctx, row);
  throw new ApiError(examsErrors.EXAM_ATTEMPT_ALREADY_SUBMITTED);
}

/** POST /exam-attempts/:id/go: the section, its quiz in the student view (fresh tokens) and the deadline. */
export async function goToSection(ctx: SchoolCtx, input: { id: string; sectionIndex: number }) {
  const reads = await runBatch(ctx, [
    examAttemptSql(ctx, input.id, ownedBy(ctx)),
    batchable(
      ctx,
      sql`SELECT s.id, s.title, s.position, s.quiz_id, sq.questions_per_attempt, sq.shuffle_questions, sq.shuffle_answers,
          (SELECT json_group_array(x.id) FROM (SELECT qq.id FROM quiz_questions qq WHERE ${liveInSchool("qq", ctx.tenantId)} AND qq.quiz_id = s.quiz_id
            ORDER BY qq.position, qq.id) x) AS question_ids
        ${liveSectionsFromSql(ctx, input.id, sql`LEFT JOIN quizzes sq ON sq.id = s.quiz_id AND ${inSchool("sq", ctx.tenantId)}`)}`,
    ),
    sectionAttemptsSql(ctx, input.id),
  ]);
  const [row] = rowsOf<ExamAttemptRow>(reads[0]);
  if (!row) throw new ApiError(examsErrors.EXAM_ATTEMPT_NOT_FOUND);
  if (row.status === "submitted") throw new ApiError(examsErrors.EXAM_ATTEMPT_ALREADY_SUBMITTED);
  const section = rowsOf<LiveSection>(reads[1])[input.sectionIndex];
  if (input.sectionIndex < 0 || !section) throw new ApiError(examsErrors.INVALID_SECTION_INDEX);

  const clock = await timer.read(ctx, row.id, { tenantId: ctx.tenantId, ensure: timerStart(ctx, row) });
  if (clock.outcome === "not_found") throw new ApiError(examsErrors.EXAM_ATTEMPT_NOT_FOUND);
  if (clock.outcome !== "open") {
    if (clock.outcome === "closed_now") await finishClosed(ctx, clock.view);
    throw new ApiError(examsErrors.EXAM_ATTEMPT_ALREADY_SUBMITTED);
  }

  const opened = rowsOf<SectionAttemptRow>(reads[2]).some((attempt) => attempt.exam_section_id === section.id);
  const writes = opened ? [] : openSectionStatements(ctx, row, section, ctx.clock.now());
  const questionReads = questionQueries(ctx, { quizIds: [section.quiz_id] });
  const results = await runBatch(ctx, [...writes, sectionQuizAttemptSql(ctx, row.id, section.id), liveQuizDetailStatement(ctx, section.quiz_id), ...questionReads]);
  const n = writes.length;
  const [quizAttempt] = rowsOf<AttemptRow>(results[n]);
  const [quiz] = rowsOf<QuizDetailRow>(results[n + 1]);
  const questionRows = results.slice(n + 2) as unknown as QuestionRows;
  // No quiz attempt: the attempt finished between the read and the write.
  if (!quizAttempt) throw new ApiError(examsErrors.EXAM_ATTEMPT_ALREADY_SUBMITTED);
  if (!quiz) throw new ApiError(examsErrors.INVALID_SECTION_INDEX);

  const started = await journal.read(ctx, quizAttempt.id, { tenantId: ctx.tenantId, ensure: journalStart(ctx, quizAttempt, questionRows[0]) });
  if (started.outcome !== "open") return timeIsUp(ctx, row);
  const live = (await presentQuestionRows(ctx, questionRows, "student")).get(section.quiz_id) ?? [];
  const form = formOfRow(quizAttempt);
  const questions = form === null ? live : formView(form, live);
  // The quiz as a student sees it, whoever takes the exam: the answers travel as the student view's tokens.
  const asStudent = { actor: { ...ctx.actor, role: "student" as const } };
  const now = started.view.now;
  return {
    section: { id: section.id, title: section.title, position: section.position },
    quiz: presentQuizDetail(asStudent, quiz, questions),
    deadline_at: iso(row.deadline_at),
    server_now: iso(now),
    remaining_seconds: remainingSeconds(row.deadline_at, now)!,
  };
}

/** A section index from the path: a whole number, else no section. */
function sectionIndexOf(text: string): number | null {
  return /^\d{1,9}$/.test(text) ? Number(text) : null;
}

/** POST /exam-attempts/:id/sections/:n/answers. */
export async function saveSectionAnswers(ctx: SchoolCtx, input: { id: string; n: string; body: SaveAnswersBody }) {
  const index = sectionIndexOf(input.n);
  if (index === null) throw new ApiError(examsErrors.INVALID_SECTION_INDEX);
  const nth = sql`(SELECT s.id ${liveSectionsSql(ctx, input.id)} LIMIT 1 OFFSET ${index})`;
  const [row] = await ctx.db.all<ExamAttemptRow & { section_id: string | null; quiz_attempt_id: string | null }>(
    sql`SELECT ${EXAM_ATTEMPT_COLUMNS}, ${nth} AS section_id,
        (SELECT esa.quiz_attempt_id FROM exam_section_attempts esa WHERE ${inSchool("esa", ctx.tenantId)} AND esa.exam_attempt_id = ea.id AND esa.exam_section_id = ${nth}) AS quiz_attempt_id
      FROM exam_attempts ea WHERE ea.id = ${input.id} AND ${inSchool("ea", ctx.tenantId)} AND ${ownedBy(ctx)}`,
  );
  if (!row) throw new ApiError(examsErrors.EXAM_ATTEMPT_NOT_FOUND);
  if (row.status === "submitted") throw new ApiError(examsErrors.EXAM_ATTEMPT_ALREADY_SUBMITTED);
  if (row.section_id === null || row.quiz_attempt_id === null) {
    throw new ApiError(examsErrors.INVALID_SECTION_INDEX, { message: row.section_id === null ? undefined : "Open the section with go before saving its answers." });
  }
  const outcome = await journal.save(ctx, row.quiz_attempt_id, { tenantId: ctx.tenantId, userId: ctx.actor.userId, answers: input.body.answers, viaExam: true });
  switch (outcome.outcome) {
    case "saved":
      return {
        saved: outcome.saved,
        ignored: outcome.ignored,
        section_index: index,
        server_now: iso(outcome.now),
        deadline_at: iso(row.deadline_at),
        remaining_seconds: remainingSeconds(row.deadline_at, outcome.now)!,
      };
    case "not_found":
      throw new ApiError(examsErrors.EXAM_ATTEMPT_NOT_FOUND);
    case "quiz_gone":
      throw new ApiError(examsErrors.INVALID_SECTION_INDEX);
    case "question_not_in_quiz":
      throw new ApiError(examsErrors.QUESTION_NOT_IN_SECTION, { message: `Question ${outcome.questionId} is not a question of this section's quiz.` });
    case "question_not_in_form":
      throw new ApiError(attemptsErrors.QUESTION_NOT_IN_FORM, { message: `Question ${outcome.questionId} is not a question of this attempt's form.` });
    case "invalid":
      throw new ApiError(coreErrors.INVALID_REQUEST_BODY, { message: outcome.message });
    case "closed_now":
    case "closed":
      // Past the deadline and its grace: the exam is finished with the answers saved before.
      return timeIsUp(ctx, row);
  }
}
