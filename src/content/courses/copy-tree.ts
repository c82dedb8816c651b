import { sql, type SQL } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import { sqlUuidv7 } from "../../core/db/sql-ids";
import type { SchoolCtx } from "../../core/http/context";
import { courseModules, lessons } from "../../db/schema";
import { appendPosition } from "../common/ordering";
import { recomputeCourseProgress } from "../common/progress";
import { inSchool } from "../../core/db/conditions";

/**
 * Deep copies of the course tree as a fixed number of set-based statements, whatever the tree's
 * size: one INSERT … SELECT writes a scratch row (`tree_copy_map`: old id → new id) for every live
 * row copied, one INSERT … SELECT per level writes the copies, finding their own new id and their
 * new parents by joining the map, lesson access groups follow their lessons, and the map rows are
 * deleted again, all in the caller's batch. Blocks keep their payload and `ref_id`: media,
 * quizzes, assignments and exams stay shared references. Schedules, completions and enrollments
 * are not copied. Deleted rows are left behind (a deletion marks every descendant, so a live row
 * never sits under a deleted one).
 *
 * The copy's root (the duplicated module or lesson) gets `" (copy)"` after its title (cut so the
 * result stays within 255 characters) and the position after its live siblings; the rows under it
 * keep their titles and positions. Each copy's id (the new course's, module's or lesson's) keys
 * its map rows, so concurrent copies never meet.
 */

/** The longest title of a course, module or lesson. */
const TITLE_MAX = 255;
const COPY_MARK = " (copy)";

/** `title` with the copy mark, cut so the result fits the title limit. */
export function copyTitleSql(title: SQL): SQL {
  return sql`substr(${title}, 1, ${TITLE_MAX - COPY_MARK.length}) || ${COPY_MARK}`;
}

type Level = "modules" | "lessons" | "blocks";

interface CopyPlan {
  /** The id of the copy's root (new course, module or lesson): it keys the map rows. */
  copyId: string;
  /** The source row of the root; it is mapped to `copyId`. */
  root: { table: "courses" | "course_modules" | "lessons"; oldId: string };
  /** The levels written, the root's own level included. */
  levels: readonly Level[];
  /** The rows under the root, per level: the column that ties them to it (`x.course_id = …`). */
  children: Partial<Record<Level, SQL>>;
  /** For a copied module or lesson: the root's level and its appended position. */
  rootRow?: { level: "modules" | "lessons"; position: SQL };
  /** Extra condition every mapped row needs (the caller's state check: the source is still live). */
  when?: SQL;
}

const TABLES: Record<Level, SQL> = { modules: sql`course_modules`, lessons: sql`lessons`, blocks: sql`blocks` };

function mapStatement(ctx: SchoolCtx, plan: CopyPlan, now: number): BatchItem {
  const t = ctx.tenantId;
  const when = plan.when ?? sql`1`;
  const root = sql`${sql.raw(plan.root.table)} r WHERE ${inSchool("r", t)} AND r.id = ${plan.root.oldId} AND r.deleted_at IS NULL AND ${when}`;
  const parts: SQL[] = [sql`SELECT ${t}, ${plan.copyId}, r.id, ${plan.copyId} FROM ${root}`];
  for (const level of ["modules", "lessons", "blocks"] as const) {
    const under = plan.children[level];
    if (!under) continue;
    // Only under a live root: a row is never copied without its copied parent.
    parts.push(sql`SELECT ${t}, ${plan.copyId}, x.id, ${sqlUuidv7(now)} FROM ${TABLES[level]} x
        WHERE ${inSchool("x", t)} AND ${under} AND x.deleted_at IS NULL AND EXISTS (SELECT 1 FROM ${root})`);
  }
  return batchable(ctx, sql`INSERT INTO tree_copy_map (tenant_id, copy_id, old_id, new_id) ${sql.join(parts, sql` UNION ALL `)}`);
}

/** `alias.column` replaced by its copy's id where the parent was copied too, else kept. */
function parentJoin(ctx: SchoolCtx, plan: CopyPlan, alias: string, column: string): { join: SQL; value: SQL } {
  const p = sql.raw(`p_${column}`);
  return {
    join: sql`LEFT JOIN tree_copy_map ${p} ON ${p}.copy_id = ${plan.copyId} AND ${p}.old_id = ${sql.raw(`${alias}.${column}`)} AND ${inSchool(p, ctx.tenantId)}`,
    value: sql`COALESCE(${p}.new_id, ${sql.raw(`${alias}.${column}`)})`,
  };
}

function selfJoin(ctx: SchoolCtx, plan: CopyPlan): SQL {
  return sql`JOIN tree_copy_map self ON self.copy_id = ${plan.copyId} AND self.old_id = x.id AND self.tenant_id = ${ctx.tenantId}`;
}

function titleAndPosition(plan: CopyPlan, level: "modules" | "lessons"): { title: SQL; position: SQL } {
  if (plan.rootRow?.level !== level) return { title: sql`x.title`, position: sql`x.position` };
  return {
    title: sql`CASE WHEN x.id = ${plan.root.oldId} THEN ${copyTitleSql(sql`x.title`)} ELSE x.title END`,
    position: sql`CASE WHEN x.id = ${plan.root.oldId} THEN ${plan.rootRow.position} ELSE x.position END`,
  };
}

function copyStatements(ctx: SchoolCtx, plan: CopyPlan): BatchItem[] {
  const now = ctx.clock.now();
  const t = ctx.tenantId;
  const statements: BatchItem[] = [mapStatement(ctx, plan, now)];
  if (plan.levels.includes("modules")) {
    const course = parentJoin(ctx, plan, "x", "course_id");
    const { title, position } = titleAndPosition(plan, "modules");
    statements.push(
      batchable(
        ctx,
        sql`INSERT INTO course_modules (id, tenant_id, course_id, title, description, position, cover_image_id, created_at, updated_at)
          SELECT self.new_id, x.tenant_id, ${course.value}, ${title}, x.description, ${position}, x.cover_image_id, ${now}, ${now}
          FROM course_modules x ${selfJoin(ctx, plan)} ${course.join}
          WHERE ${inSchool("x", t)}`,
      ),
    );
  }
  if (plan.levels.includes("lessons")) {
    const course = parentJoin(ctx, plan, "x", "course_id");
    const module = parentJoin(ctx, plan, "x", "module_id");
    const { title, position } = titleAndPosition(plan, "lessons");
    statements.push(
      batchable(
        ctx,
        sql`INSERT INTO lessons (id, tenant_id, course_id, module_id, title, position, screenshot_protection_enabled, cover_image_id, created_at, updated_at)
          SELECT self.new_id, x.tenant_id, ${course.value}, ${module.value}, ${title}, ${position}, x.screenshot_protection_enabled, x.cover_image_id, ${now}, ${now}
          FROM lessons x ${selfJoin(ctx, plan)} ${course.join} ${module.join}
          WHERE ${inSchool("x", t)}`,
      ),
    );
  }
  if (plan.levels.includes("blocks")) {
    const course = parentJoin(ctx, plan, "x", "course_id");
    const module = parentJoin(ctx, plan, "x", "module_id");
    const lesson = parentJoin(ctx, plan, "x", "lesson_id");
    statements.push(
      batchable(
        ctx,
        sql`INSERT INTO blocks (id, tenant_id, course_id, module_id, lesson_id, type, payload, ref_id, position, created_at, updated_at)
          SELECT self.new_id, x.tenant_id, ${course.value}, ${module.value}, ${lesson.value}, x.type, x.payload, x.ref_id, x.position, ${now}, ${now}
          FROM blocks x ${selfJoin(ctx, plan)} ${course.join} ${module.join} ${lesson.join}
          WHERE ${inSchool("x", t)}`,
      ),
    );
  }
  statements.push(
    batchable(
      ctx,
      sql`INSERT INTO lesson_groups (tenant_id, lesson_id, group_id, created_at)
        SELECT lg.tenant_id, m.new_id, lg.group_id, ${now}
        FROM lesson_groups lg JOIN tree_copy_map m ON m.copy_id = ${plan.copyId} AND m.old_id = lg.lesson_id AND ${inSchool("m", t)}
        WHERE ${inSchool("lg", t)}`,
    ),
    batchable(ctx, sql`DELETE FROM tree_copy_map WHERE ${inSchool(t)} AND copy_id = ${plan.copyId}`),
  );
  return statements;
}

/**
 * Copies every live module, lesson and block of `sourceCourseId` (with the lessons' access
 * groups) into `targetCourseId`, keeping titles and positions. The caller writes the new course
 * row in the same batch, ahead of these statements: nothing is copied unless the target course
 * exists by then and the source course is still live (and `when`, if given, holds). Six
 * statements, in order: map, modules, lessons, blocks, lesson groups, map cleanup.
 */
export function copyCourseStatements(ctx: SchoolCtx, input: { sourceCourseId: string; targetCourseId: string; when?: SQL }): BatchItem[] {
  const { sourceCourseId, targetCourseId } = input;
  const targetExists = sql`EXISTS (SELECT 1 FROM courses tc WHERE ${inSchool("tc", ctx.tenantId)} AND tc.id = ${targetCourseId} AND tc.deleted_at IS NULL)`;
  return copyStatements(ctx, {
    copyId: targetCourseId,
    root: { table: "courses", oldId: sourceCourseId },
    levels: ["modules", "lessons", "blocks"],
    children: {
      modules: sql`x.course_id = ${sourceCourseId}`,
      lessons: sql`x.course_id = ${sourceCourseId}`,
      blocks: sql`x.course_id = ${sourceCourseId}`,
    },
    when: input.when ? sql`${targetExists} AND ${input.when}` : targetExists,
  });
}

/**
 * Copies the live module `moduleId` of `courseId` with its live lessons, blocks and lesson
 * groups to the end of the same course, as module `newId` titled `<title> (copy)`; the lessons and
 * blocks keep their titles and positions. Nothing is written when the module is no longer live
 * (or `when` does not hold): read module `newId` in the same batch to tell. The last statement
 * recounts the course's enrollments' progress. Seven statements: map, modules, lessons, blocks,
 * lesson groups, map cleanup, progress.
 */
export function copyModuleStatements(ctx: SchoolCtx, input: { moduleId: string; courseId: string; newId: string; when?: SQL }): BatchItem[] {
  const { moduleId, courseId, newId } = input;
  return [
    ...copyStatements(ctx, {
      copyId: newId,
      root: { table: "course_modules", oldId: moduleId },
      levels: ["modules", "lessons", "blocks"],
      children: { lessons: sql`x.module_id = ${moduleId}`, blocks: sql`x.module_id = ${moduleId}` },
      rootRow: { level: "modules", position: appendPosition(ctx.tenantId, { table: courseModules, parent: { column: courseModules.courseId, id: courseId } }) },
      when: input.when,
    }),
    recomputeCourseProgress(ctx, ctx.tenantId, courseId),
  ];
}

/**
 * Copies the live lesson `lessonId` of module `moduleId` (course `courseId`) with its live blocks
 * and access groups to the end of the same module, as lesson `newId` titled `<title> (copy)`; the
 * blocks keep their positions. Nothing is written when the lesson is no longer live (or `when`
 * does not hold): read lesson `newId` in the same batch to tell. The last statement recounts the
 * course's enrollments' progress. Six statements: map, lessons, blocks, lesson groups, map
 * cleanup, progress.
 */
export function copyLessonStatements(
  ctx: SchoolCtx,
  input: { lessonId: string; moduleId: string; courseId: string; newId: string; when?: SQL },
): BatchItem[] {
  const { lessonId, moduleId, courseId, newId } = input;
  return [
    ...copyStatements(ctx, {
      copyId: newId,
      root: { table: "lessons", oldId: lessonId },
      levels: ["lessons", "blocks"],
      children: { blocks: sql`x.lesson_id = ${lessonId}` },
      rootRow: { level: "lessons", position: appendPosition(ctx.tenantId, { table: lessons, parent: { column: lessons.moduleId, id: moduleId } }) },
      when: input.when,
    }),
    recomputeCourseProgress(ctx, ctx.tenantId, courseId),
  ];
}
