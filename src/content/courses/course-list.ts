import type { z } from "@hono/zod-openapi";
import type { SchoolCtx } from "../../core/http/context";
import { presentCourseListItem } from "./course-present";
import { courseListStatements } from "./course-read";
import type { ListCoursesQuery } from "./course-schemas";

/**
 * GET /t/courses: one batch (one round trip) for the counts and the page with its aggregates.
 * Staff see every live course; students see published ones only, so their `draft` count is 0,
 * and may filter on their own enrollment (`enrolled`, ignored for staff). The counts apply every
 * filter but `status`, so they read as the tabs of the current search; `total` applies all.
 */
export async function listCourses(ctx: SchoolCtx, input: { query: z.infer<typeof ListCoursesQuery> }) {
  const { query } = input;
  const { counts, page } = courseListStatements(ctx, query);
  const [[totals], rows] = await ctx.db.batch([counts, page]);
  return {
    courses: await Promise.all(rows.map((row) => presentCourseListItem(ctx, row))),
    counts: { all: totals?.all ?? 0, published: totals?.published ?? 0, draft: totals?.draft ?? 0 },
    total: totals?.total ?? 0,
    page: query.page,
    limit: query.limit,
  };
}
