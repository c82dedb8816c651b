import { uuidv7 } from "../../../src/core/lib/ids";
import { createSchool, createUser } from "../../helpers/factories";
import { signedIn, type Member } from "../../helpers/users";
import type { UserOptions } from "../../helpers/factories";
import { insertCourseTree } from "../../helpers/courses";
import { insertExam } from "../../helpers/exams";
import { insertQuiz } from "../../helpers/quizzes";
import { insertAssignment } from "../assignments/helpers";
import { fixtureD1 } from "../../helpers/databases";

/** Fixtures of the rating read tests: named students and point events written straight to D1 (the triggers keep the totals). */

/** A student named `first last`, signed in (an inactive one cannot sign in: it comes without a token). */
export async function named(school: { id: string; subdomain: string }, first: string, last: string, options: UserOptions = {}): Promise<Member> {
  const member =
    options.isActive === false
      ? { ...(await createUser(school.id, { role: "student", ...options, firstName: first })), token: "", sessionId: "", subdomain: school.subdomain }
      : await signedIn(school, { role: "student", ...options, firstName: first });
  await fixtureD1.prepare("UPDATE users SET last_name = ? WHERE id = ?").bind(last, member.id).run();
  return member as Member;
}

export interface EventOptions {
  sourceType?: string;
  targetId?: string | null;
  awardedAt?: number;
  reason?: string | null;
  actorUserId?: string | null;
  ruleId?: string | null;
  id?: string;
}

/** One point event of `points` hundredths (signed). */
export function eventStatement(tenantId: string, studentId: string, points: number, options: EventOptions = {}) {
  const id = options.id ?? uuidv7();
  const sourceType = options.sourceType ?? "manual";
  return fixtureD1.prepare(
    `INSERT INTO point_events (id, tenant_id, student_id, source_type, target_id, source_key, points_hundredths, rule_id, reason, actor_user_id, awarded_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).bind(
    id,
    tenantId,
    studentId,
    sourceType,
    options.targetId ?? null,
    `test:${id}`,
    points,
    options.ruleId ?? null,
    options.reason ?? (sourceType === "manual" ? "test" : null),
    options.actorUserId ?? null,
    options.awardedAt ?? Date.now(),
  );
}

export async function award(member: { id: string; tenantId: string }, points: number, options: EventOptions = {}) {
  const id = options.id ?? uuidv7();
  await eventStatement(member.tenantId, member.id, points, { ...options, id }).run();
  return id;
}

export async function ratingSchool() {
  const school = await createSchool();
  const admin = await signedIn(school, { role: "admin" });
  return { school, admin };
}

export const dayMs = 86_400_000;

/**
 * A course of two modules for the event filters: module 1 has live lessons "Lesson A" (a quiz_ref
 * block to "Quiz One") and "Lesson B" (an assignment_ref block to "Essay"), and a deleted lesson
 * whose block references "Quiz Two"; module 2's lesson references "Quiz Three". Plus an exam.
 */
export async function ratedContent(tenantId: string) {
  const tree = await insertCourseTree(tenantId, { shape: [2, 3, 1] });
  const [m1, m2] = tree.modules;
  const quizOne = await insertQuiz(tenantId, { title: "Quiz One" });
  const quizTwo = await insertQuiz(tenantId, { title: "Quiz Two" });
  const quizThree = await insertQuiz(tenantId, { title: "Quiz Three" });
  const quizFour = await insertQuiz(tenantId, { title: "Quiz Four" });
  const essay = await insertAssignment(tenantId, { title: "Essay" });
  const exam = await insertExam(tenantId, { title: "Final exam" });
  const lessonA = m1!.lessons[0]!;
  const lessonB = m1!.lessons[1]!;
  const lessonGone = m1!.lessons[2]!;
  const setBlock = (blockId: string, type: string, refId: string) =>
    fixtureD1.prepare("UPDATE blocks SET type = ?, ref_id = ?, payload = ? WHERE id = ?").bind(type, refId, JSON.stringify({ ref: refId }), blockId);
  await fixtureD1.batch([
    fixtureD1.prepare("UPDATE lessons SET title = 'Lesson A' WHERE id = ?").bind(lessonA.id),
    fixtureD1.prepare("UPDATE lessons SET title = 'Lesson B' WHERE id = ?").bind(lessonB.id),
    fixtureD1.prepare("UPDATE lessons SET title = 'Lesson Gone', deleted_at = 1 WHERE id = ?").bind(lessonGone.id),
    setBlock(lessonA.blocks[0]!, "quiz_ref", quizOne.id),
    setBlock(lessonB.blocks[0]!, "assignment_ref", essay.id),
    setBlock(lessonGone.blocks[0]!, "quiz_ref", quizTwo.id),
    setBlock(m2!.lessons[0]!.blocks[0]!, "quiz_ref", quizThree.id),
  ]);
  return { tree, module1: m1!.id, module2: m2!.id, lessonA: lessonA.id, lessonB: lessonB.id, lessonGone: lessonGone.id, quizOne: quizOne.id, quizTwo: quizTwo.id, quizThree: quizThree.id, quizFour: quizFour.id, essay: essay.id, exam: exam.id };
}

export const T0 = Date.parse("2030-01-01T00:00:00Z");
export const day = (n: number) => T0 + n * dayMs;
