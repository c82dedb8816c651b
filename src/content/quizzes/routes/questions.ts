import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { jsonBody, optionalJsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { orderingErrors } from "../../../core/http/reorder";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { quizzesErrors as e } from "../errors";
import * as s from "../question-schemas";
import { createQuestion, deleteQuestion, reorderQuestions, updateQuestion } from "../question-service";

/** Questions of a quiz: authoring only; they are read inside the quiz. */
export const questionRoutesPart = createArea();

const tags = ["Quizzes"];
const manageCourses = { gate: gates.permission("can_manage_courses"), deny: "forbidden" } as const;

const createQuestionRoute = defineRoute({
  method: "post",
  path: "/t/quizzes/{id}/questions",
  ...manageCourses,
  tags,
  summary: "Add a question at the end of the quiz (answers, accepted texts and pairs come with an update)",
  request: { params: IdParams, ...jsonBody(s.CreateQuestionBody) },
  failures: [e.QUESTION_CONTENT_REQUIRED, e.INVALID_QUIZ_IMAGE_ASSET, e.QUIZ_NOT_FOUND],
  responses: { 201: okResponse(s.QuestionObject) },
});
questionRoutesPart.openapi(createQuestionRoute, async (c) =>
  ok(c, await createQuestion(tenantCtx(c), { quizId: c.req.valid("param").id, body: c.req.valid("json") }), 201),
);

const reorderQuestionsRoute = defineRoute({
  method: "patch",
  path: "/t/quizzes/{id}/reorder-questions",
  ...manageCourses,
  tags,
  summary: "Put the quiz's questions in a new order (every live question exactly once)",
  request: { params: IdParams, ...jsonBody(s.ReorderQuestionsBody) },
  failures: [orderingErrors.REORDER_DUPLICATE, orderingErrors.REORDER_INCOMPLETE, e.QUIZ_NOT_FOUND],
  responses: { 200: okResponse(s.QuestionsReordered) },
});
questionRoutesPart.openapi(reorderQuestionsRoute, async (c) =>
  ok(c, await reorderQuestions(tenantCtx(c), { quizId: c.req.valid("param").id, ids: c.req.valid("json").ordered_ids })),
);

const updateQuestionRoute = defineRoute({
  method: "patch",
  path: "/t/quiz-questions/{id}",
  ...manageCourses,
  tags,
  summary: "Change a question; `answers` and `matches` replace the lists (answers listed by id keep their id and picture); the type never changes",
  request: { params: IdParams, ...optionalJsonBody(s.UpdateQuestionBody) },
  failures: [
    e.ANSWERS_NOT_ALLOWED_FOR_FREE_TEXT,
    e.ANSWERS_NOT_ALLOWED_FOR_MATCHING,
    e.CORRECT_TEXT_NOT_ALLOWED_FOR_CHOICE,
    e.SINGLE_CHOICE_MULTIPLE_CORRECT,
    e.QUESTION_CONTENT_REQUIRED,
    e.ANSWER_CONTENT_REQUIRED,
    e.INVALID_QUIZ_IMAGE_ASSET,
    e.MATCHES_NOT_ALLOWED_FOR_NON_MATCHING_QUESTION,
    e.QUESTION_NOT_FOUND,
  ],
  responses: { 200: okResponse(s.QuestionObject) },
});
questionRoutesPart.openapi(updateQuestionRoute, async (c) =>
  ok(c, await updateQuestion(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })),
);

const deleteQuestionRoute = defineRoute({
  method: "delete",
  path: "/t/quiz-questions/{id}",
  ...manageCourses,
  tags,
  summary: "Delete a question (soft); finished attempts keep their answers to it",
  request: { params: IdParams },
  failures: [e.QUESTION_NOT_FOUND],
  responses: { 204: { description: "Deleted" } },
});
questionRoutesPart.openapi(deleteQuestionRoute, async (c) => {
  await deleteQuestion(tenantCtx(c), { id: c.req.valid("param").id });
  return c.body(null, 204);
});
