import { sql, type SQL } from "drizzle-orm";
import type { SchoolCtx } from "../../core/http/context";
import type { WindowLevel } from "../../db/schema";
import { groupVisibleSql } from "../groups/scope";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The node a schedule request addresses, in the default grid or in a group's grid, and the SQL
 * that finds it live. A group grid request names the whole lineage (course, module), which must
 * match the tree; a default-grid request names only the node.
 */
export interface WindowNode {
  level: WindowLevel;
  /** The course, module or lesson id the window is on. */
  nodeId: string;
  /** Null for the default grid. */
  groupId: string | null;
  courseId?: string;
  moduleId?: string;
}

type Ctx = Pick<SchoolCtx, "tenantId" | "actor">;

export const gridKeyOf = (node: WindowNode): string => node.groupId ?? "";

/** The default grid's node. */
export function defaultNode(level: WindowLevel, nodeId: string): WindowNode {
  return { level, nodeId, groupId: null };
}

/** A group grid's node from the request's lineage (the validator made sure the level's ids are there). */
export function groupNode(groupId: string, body: { course_id: string; level: WindowLevel; module_id?: string | null; lesson_id?: string | null }): WindowNode {
  const nodeId = body.level === "course" ? body.course_id : body.level === "module" ? body.module_id! : body.lesson_id!;
  return {
    level: body.level,
    nodeId,
    groupId,
    courseId: body.course_id,
    ...(body.level === "course" ? {} : { moduleId: body.module_id! }),
  };
}

/**
 * One row `(course_id, module_id, lesson_id, course_status)` while the node, its ancestors and (in
 * a group grid) the group are live in the school and the lineage the request named matches.
 */
export function targetSql(ctx: Ctx, node: WindowNode): SQL {
  const t = ctx.tenantId;
  // A group grid is the group's: a curator without can_manage_groups reaches only the groups they curate.
  const group = node.groupId === null ? sql`` : sql`AND EXISTS (SELECT 1 FROM groups tgg WHERE tgg.id = ${node.groupId} AND ${groupVisibleSql(ctx, sql`tgg`)})`;
  const course = sql`JOIN courses tgc ON tgc.id = tgn.course_id AND ${liveInSchool("tgc", t)}`;
  const inCourse = node.courseId === undefined ? sql`` : sql`AND tgn.course_id = ${node.courseId}`;
  if (node.level === "course") {
    return sql`SELECT tgn.id AS course_id, NULL AS module_id, NULL AS lesson_id, tgn.status AS course_status FROM courses tgn
      WHERE tgn.id = ${node.nodeId} AND ${liveInSchool("tgn", t)} ${group}`;
  }
  if (node.level === "module") {
    return sql`SELECT tgn.course_id, tgn.id AS module_id, NULL AS lesson_id, tgc.status AS course_status FROM course_modules tgn ${course}
      WHERE tgn.id = ${node.nodeId} AND ${liveInSchool("tgn", t)} ${inCourse} ${group}`;
  }
  const inModule = node.moduleId === undefined ? sql`` : sql`AND tgn.module_id = ${node.moduleId}`;
  return sql`SELECT tgn.course_id, tgn.module_id, tgn.id AS lesson_id, tgc.status AS course_status FROM lessons tgn ${course}
      JOIN course_modules tgm ON tgm.id = tgn.module_id AND ${liveInSchool("tgm", t)}
    WHERE tgn.id = ${node.nodeId} AND ${liveInSchool("tgn", t)} ${inCourse} ${inModule} ${group}`;
}

/** The node's course id as SQL (a value when the request named it). */
export function courseIdSql(ctx: Ctx, node: WindowNode): SQL {
  if (node.courseId !== undefined) return sql`${node.courseId}`;
  if (node.level === "course") return sql`${node.nodeId}`;
  const table = node.level === "module" ? sql`course_modules` : sql`lessons`;
  return sql`(SELECT cn.course_id FROM ${table} cn WHERE cn.id = ${node.nodeId} AND ${inSchool("cn", ctx.tenantId)})`;
}

/** A lesson's module id as SQL. */
function moduleIdSql(ctx: Ctx, node: WindowNode): SQL {
  if (node.moduleId !== undefined) return sql`${node.moduleId}`;
  return sql`(SELECT mn.module_id FROM lessons mn WHERE mn.id = ${node.nodeId} AND ${inSchool("mn", ctx.tenantId)})`;
}

/** The live window on `nodeId` in the node's grid exists. */
function windowOnSql(ctx: Ctx, node: WindowNode, nodeId: SQL): SQL {
  return sql`EXISTS (SELECT 1 FROM schedule_windows wx WHERE ${inSchool("wx", ctx.tenantId)} AND wx.grid_key = ${gridKeyOf(node)}
    AND wx.node_id = ${nodeId} AND wx.deleted_at IS NULL)`;
}

/** The node has a live window in its grid. */
export function windowExistsSql(ctx: Ctx, node: WindowNode): SQL {
  return windowOnSql(ctx, node, sql`${node.nodeId}`);
}

/** A lesson window may be set: its module has a window in the same grid (always true above lesson level). */
export function moduleWindowSql(ctx: Ctx, node: WindowNode): SQL {
  return node.level === "lesson" ? windowOnSql(ctx, node, moduleIdSql(ctx, node)) : sql`1`;
}

/** The node's live window in its grid, and (for a module) its lessons' windows in that grid. */
export function clearedRowsSql(ctx: Ctx, node: WindowNode): SQL {
  const lessons = node.level === "module" ? sql`OR (level = 'lesson' AND module_id = ${node.nodeId})` : sql``;
  return sql`${inSchool(ctx.tenantId)} AND grid_key = ${gridKeyOf(node)} AND deleted_at IS NULL AND (node_id = ${node.nodeId} ${lessons})`;
}
