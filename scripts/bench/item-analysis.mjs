/**
 * The bench of GET /t/quizzes/:id/item-analysis (05 section 2): the quiz analytics bench's quiz
 * (scripts/bench/quiz-analytics.mjs: 50 questions, 10,000 settled attempts, 500,000 answers), read by
 * the demo admin. The snapshot is computed by the `lms-item-analysis` queue after the first read
 * asks for it; `primeItemAnalysis` waits for it before the measuring starts, so the rounds measure
 * the read of a fresh snapshot (docs/decisions/item-analysis.md, "Snapshot and freshness").
 */
import { DEMO } from "../seed/demo.mjs";
import { QUIZ_ANALYTICS_QUIZ_ID } from "./quiz-analytics.mjs";

/** The statements of a read that finds its snapshot fresh: the quiz, questions, answers, snapshot, the version with the deleted members, and the bounded count. */
const FRESH_STATEMENTS = 6;

const headers = (sessions) => ({ authorization: `Bearer ${sessions.admin.token}`, "x-tenant-subdomain": DEMO.subdomain });

export const ITEM_ANALYSIS_ENDPOINT = {
  name: "GET /api/v1/t/quizzes/:id/item-analysis (10,000 attempts × 50 questions, snapshot)",
  method: "GET",
  path: `/api/v1/t/quizzes/${QUIZ_ANALYTICS_QUIZ_ID}/item-analysis`,
  headers,
};

/** Reads until a read answers from the fresh snapshot (the queue has computed it), at most `timeoutMs`. */
export async function primeItemAnalysis(baseUrl, sessions, timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await fetch(`${baseUrl}${ITEM_ANALYSIS_ENDPOINT.path}`, { headers: headers(sessions) });
    await res.arrayBuffer();
    const match = /d1;dur=[0-9.]+;desc="(\d+)"/.exec(res.headers.get("server-timing") ?? "");
    if (res.ok && match && Number(match[1]) <= FRESH_STATEMENTS) return;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  throw new Error("item analysis: no fresh snapshot within the time limit (is the lms-item-analysis consumer running?)");
}
