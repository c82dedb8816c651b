import { sql } from "drizzle-orm";
import { batchable, isUniqueViolation, runBatch } from "../../core/db/batch";
import { liveRowWhere } from "../../core/db/live-row";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { courses } from "../../db/schema";
import { appendPosition } from "../common/ordering";
import { copyCourseStatements, copyTitleSql } from "./copy-tree";
import { presentCourseDetail } from "./course-present";
import { courseDetailStatement, type CourseDetailRow } from "./course-read";
import { SLUG_MAX } from "./course-schemas";
import { coursesErrors } from "./errors";
import { inSchool } from "../../core/db/conditions";

/** Slugs of the copies of a course: `<slug>-copy`, then `-copy-2`, `-copy-3`…, within the slug limit. */
function copySlug(slug: string, n: number): string {
  const suffix = n === 1 ? "-copy" : `-copy-${n}`;
  const base = slug.slice(0, SLUG_MAX - suffix.length).replace(/-+$/, "");
  return base + suffix;
}

/** The first copy slug no live course of the school uses. */
export function freeCopySlug(slug: string, taken: ReadonlySet<string>): string {
  for (let n = 1; ; n++) {
    const candidate = copySlug(slug, n);
    if (!taken.has(candidate)) return candidate;
  }
}

/** Every copy slug of the course starts with its slug's first this many characters (a cut base keeps more). */
const SLUG_PREFIX = 100;

/** A concurrent copy may take the chosen slug first; the next free one is tried. */
const ATTEMPTS = 5;

/**
 * POST /t/courses/:id/duplicate: a draft copy after the school's other courses, titled
 * `<title> (copy)`, with every live module, lesson, block and lesson access group (copy-tree.ts).
 * One read (the source and the slugs its copies could take), then one batch whose statement count
 * does not depend on the course's size: the course row, the tree copy, and the new course's detail.
 */
export async function duplicateCourse(ctx: SchoolCtx, input: { id: string }) {
  const source = liveRowWhere(courses, ctx.tenantId, input.id);
  for (let attempt = 1; ; attempt++) {
    const [found, similar] = await ctx.db.batch([
      ctx.db.select({ slug: courses.slug }).from(courses).where(source).limit(1),
      ctx.db
        .select({ slug: courses.slug })
        .from(courses)
        .where(
          sql`${inSchool(courses, ctx.tenantId)} AND ${courses.deletedAt} IS NULL
            AND instr(${courses.slug}, (SELECT substr(s.slug, 1, ${SLUG_PREFIX}) FROM courses s WHERE ${inSchool("s", ctx.tenantId)} AND s.id = ${input.id})) = 1`,
        ),
    ]);
    if (!found[0]) throw new ApiError(coursesErrors.COURSE_NOT_FOUND);
    const slug = freeCopySlug(found[0].slug, new Set(similar.map((row) => row.slug)));
    const now = ctx.clock.now();
    const id = uuidv7(now);
    const insert = batchable(
      ctx,
      sql`INSERT INTO courses (id, tenant_id, title, slug, description, status, sequential_required, position, cover_image_id, created_by, created_at, updated_at)
        SELECT ${id}, s.tenant_id, ${copyTitleSql(sql`s.title`)}, ${slug}, s.description, 'draft', s.sequential_required,
               ${appendPosition(ctx.tenantId, { table: courses })}, s.cover_image_id, ${ctx.actor.userId}, ${now}, ${now}
        FROM courses s WHERE ${inSchool("s", ctx.tenantId)} AND s.id = ${input.id} AND s.deleted_at IS NULL`,
    );
    try {
      const results = await runBatch(ctx, [insert, ...copyCourseStatements(ctx, { sourceCourseId: input.id, targetCourseId: id }), courseDetailStatement(ctx, id)]);
      const [row] = results.at(-1) as CourseDetailRow[];
      // The source was deleted between the read and the batch: nothing was written.
      if (!row) throw new ApiError(coursesErrors.COURSE_NOT_FOUND);
      return presentCourseDetail(ctx, row);
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= ATTEMPTS) throw err;
    }
  }
}
