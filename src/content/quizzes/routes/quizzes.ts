import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import "../audience";
import { quizzesErrors as e } from "../errors";
import { listQuizzes } from "../quiz-list";
import { createQuiz, deleteQuiz, getQuiz, updateQuiz } from "../quiz-service";
import "../refs";
import * as s from "../schemas";

export const quizRoutesPart = createArea();

const tags = ["Quizzes"];
const manageCourses = gates.permission("can_manage_courses");

const createQuizRoute = defineRoute({
  method: "post",
  path: "/t/quizzes",
  gate: manageCourses,
  deny: "forbidden",
  tags,
  summary: "Create a quiz (no questions yet; add them with POST /quizzes/:id/questions)",
  request: jsonBody(s.CreateQuizBody),
  responses: { 201: okResponse(s.QuizDetail) },
});

quizRoutesPart.openapi(createQuizRoute, async (c) => ok(c, await createQuiz(tenantCtx(c), { body: c.req.valid("json") }), 201));

const listQuizzesRoute = defineRoute({
  method: "get",
  path: "/t/quizzes",
  gate: gates.member,
  errors: { query: "invalid_params" },
  tags,
  summary: "List quizzes with their question count and attempt aggregates (students: the quizzes their courses give them)",
  request: { query: s.ListQuizzesQuery },
  failures: [e.INVALID_COURSE_ID],
  responses: { 200: okResponse(s.QuizList) },
});

quizRoutesPart.openapi(listQuizzesRoute, async (c) => ok(c, await listQuizzes(tenantCtx(c), { query: c.req.valid("query") })));

const getQuizRoute = defineRoute({
  method: "get",
  path: "/t/quizzes/{id}",
  gate: gates.member,
  tags,
  summary: "One quiz with its questions and references (staff: with the answers; students: the safe view of a quiz they reach)",
  request: { params: IdParams },
  failures: [e.QUIZ_NOT_FOUND],
  responses: { 200: okResponse(s.QuizDetail) },
});

quizRoutesPart.openapi(getQuizRoute, async (c) => ok(c, await getQuiz(tenantCtx(c), { id: c.req.valid("param").id })));

const updateQuizRoute = defineRoute({
  method: "patch",
  path: "/t/quizzes/{id}",
  gate: manageCourses,
  tags,
  summary: "Change a quiz's settings; fields left out stay as they are",
  request: { params: IdParams, ...jsonBody(s.UpdateQuizBody) },
  failures: [e.QUIZ_NOT_FOUND, e.QUESTIONS_PER_ATTEMPT_TOO_LARGE],
  responses: { 200: okResponse(s.QuizDetail) },
});

quizRoutesPart.openapi(updateQuizRoute, async (c) => ok(c, await updateQuiz(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })));

const deleteQuizRoute = defineRoute({
  method: "delete",
  path: "/t/quizzes/{id}",
  gate: manageCourses,
  tags,
  summary: "Delete a quiz (soft); refused while an exam uses it as a section. Blocks naming it then show nothing",
  request: { params: IdParams },
  failures: [e.QUIZ_NOT_FOUND, e.QUIZ_REFERENCED_BY_EXAM],
  responses: { 204: { description: "Deleted" } },
});

quizRoutesPart.openapi(deleteQuizRoute, async (c) => {
  await deleteQuiz(tenantCtx(c), { id: c.req.valid("param").id });
  return c.body(null, 204);
});
