import { percent } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { iso } from "../../core/lib/clock";
import { curatorFiguresSql, type CuratorSelection, type FigureRow } from "./curators-query";
import type { CuratorAnalytics, CuratorAnalyticsQuery } from "./schemas";
import { servedReport } from "./reports";
import { periodOf } from "./window";

/**
 * GET /analytics/curators: per curator, how many of their assigned active students were active,
 * handed in on time and completed quizzes and exams in the period, as counts and as percentages
 * of the students assigned now. An admin compares every active curator (or one by `curator_id`);
 * a curator gets their own row whatever `curator_id` says. Answered from the query's snapshot when
 * there is a recent one, else live by one statement (docs/decisions/heavy-reads-curators.md, "Curator
 * analytics snapshots"); `computed_at` says which instant the figures hold for.
 */
export async function curatorAnalytics(ctx: SchoolCtx, query: CuratorAnalyticsQuery): Promise<CuratorAnalytics> {
  const now = ctx.clock.now();
  const period = periodOf(query, now, ctx.tenant.timezone);
  const contentFiltered = query.course_id !== undefined || query.module_id !== undefined || query.lesson_id !== undefined;
  const selection: CuratorSelection = {
    tenantId: ctx.tenantId,
    period,
    curatorId: ctx.actor.role === "curator" ? ctx.actor.userId : (query.curator_id ?? null),
    groupId: query.group_id,
    content: contentFiltered ? { courseId: query.course_id, moduleId: query.module_id, lessonId: query.lesson_id } : null,
  };
  const openTo = query.to === undefined;
  const snapshot = await servedReport(ctx, selection, openTo, now);
  const rows = snapshot?.rows ?? (await ctx.db.all<FigureRow>(curatorFiguresSql(selection)));
  const summary = rows.find((row) => row.kind === 1);
  return {
    from: iso(period.from),
    to: iso(snapshot && openTo ? snapshot.computedAt : period.to),
    computed_at: iso(snapshot?.computedAt ?? now),
    exam_applicable: !contentFiltered,
    summary: { curators: rows.length - 1, ...figures(summary, contentFiltered) },
    curators: rows
      .filter((row) => row.kind === 0)
      .map((row) => ({ curator_id: row.curator_id!, first_name: row.first_name!, last_name: row.last_name!, email: row.email!, ...figures(row, contentFiltered) })),
  };
}

function figures(row: FigureRow | undefined, contentFiltered: boolean) {
  const students = row?.students ?? 0;
  const measure = (count: number) => ({ students: count, rate_pct: percent(count, students) });
  return {
    students,
    active: measure(row?.active ?? 0),
    assignments_on_time: measure(row?.on_time ?? 0),
    quizzes_completed: measure(row?.quizzes ?? 0),
    exams_completed: contentFiltered ? null : measure(row?.exams ?? 0),
  };
}
