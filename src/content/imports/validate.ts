import { sql } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { emailField, plainText } from "../../core/http/fields";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import type { Column, ImportKind } from "./parse";

/**
 * The dry run (05 section 3, docs/decisions/imports.md, "Validation"): every row of a file checked
 * against the school's data with set-based lookups (users by email, groups by name, courses by
 * slug, the memberships and enrollments among them), one batch per `LOOKUP_SLICE` rows, then the
 * rows are classified in memory.
 */

export type RowAction = "create" | "update" | "unchanged" | "error";
export type RowCode =
  | "invalid_email"
  | "missing_value"
  | "invalid_role"
  | "duplicate_in_file"
  | "user_not_found"
  | "course_not_found"
  | "group_not_found"
  | "not_a_student"
  | "out_of_scope";

export type Values = Partial<Record<Column, string>>;
export type Changes = Record<string, [unknown, unknown]>;

/** A row of the plan as the API shows it. */
export interface PlanRow {
  row: number;
  action: RowAction;
  key: string;
  changes: Changes;
  errors: { column: string; code: RowCode }[];
}

/** What an apply needs of a row besides the plan: the records it acts on, as found now. */
export interface Target {
  userId?: string;
  groupId?: string;
  courseId?: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  role?: "student" | "curator";
}

export interface CheckedRow extends PlanRow {
  target: Target;
}

const ROLE_WORDS: Record<string, "student" | "curator"> = { student: "student", curator: "curator", студент: "student", куратор: "curator" };
const name = plainText({ min: 1, max: 100 });

interface UserRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  role: string;
  in_scope: number;
}

/**
 * Rows whose lookups share one batch. A batch holds the shard for all of its statements, and the
 * users' lookup costs about 5 µs per address: a 5,000-row file in one batch held it for 30-50 ms
 * (docs/decisions/imports.md, "Lookups in slices").
 */
export const LOOKUP_SLICE = 1_000;

type Found = Awaited<ReturnType<typeof lookupSlice>>;

/** The school's data the rows name: one batch per slice of rows (at least one), merged. */
async function lookups(ctx: SchoolCtx, kind: ImportKind, rows: readonly Values[]): Promise<Found> {
  let found: Found | undefined;
  for (let start = 0; found === undefined || start < rows.length; start += LOOKUP_SLICE) {
    const slice = await lookupSlice(ctx, kind, rows.slice(start, start + LOOKUP_SLICE));
    if (!found) found = slice;
    else {
      for (const [key, value] of slice.users) found.users.set(key, value);
      // Every slice resolves a name to the same oldest group, so merging keeps the rule.
      for (const [key, value] of slice.groups) found.groups.set(key, value);
      for (const [key, value] of slice.courses) found.courses.set(key, value);
      for (const key of slice.members) found.members.add(key);
      for (const key of slice.enrolled) found.enrolled.add(key);
    }
  }
  return found;
}

/** The school's data a slice of rows names, read in one batch (five statements at most). */
async function lookupSlice(ctx: SchoolCtx, kind: ImportKind, rows: readonly Values[]) {
  const distinct = (column: Column, normalize: (value: string) => string = (value) => value) =>
    JSON.stringify([...new Set(rows.map((row) => normalize(row[column] ?? "")).filter((value) => value !== ""))]);
  const emails = distinct("email", (value) => value.toLowerCase());
  const groupNames = distinct("group");
  const slugs = distinct("course_slug");
  const scope = scopeCondition(sql`u.id`, restrictedScope(ctx));
  const usersSql = sql`SELECT u.id FROM users u WHERE ${liveInSchool("u", ctx.tenantId)} AND u.email IN (SELECT value FROM json_each(${emails}))`;
  const groupsSql = sql`SELECT g.id FROM groups g WHERE ${liveInSchool("g", ctx.tenantId)} AND g.name IN (SELECT value FROM json_each(${groupNames}))`;
  const coursesSql = sql`SELECT c.id FROM courses c WHERE ${liveInSchool("c", ctx.tenantId)} AND c.status = 'published' AND c.slug IN (SELECT value FROM json_each(${slugs}))`;
  const statements = [
    batchable(
      ctx,
      sql`SELECT u.id, u.email, u.first_name, u.last_name, u.role, ${scope ? sql`CASE WHEN ${scope} THEN 1 ELSE 0 END` : sql`1`} AS in_scope
        FROM users u WHERE ${liveInSchool("u", ctx.tenantId)} AND u.email IN (SELECT value FROM json_each(${emails}))`,
    ),
    // The oldest live group of a name answers for it (names are not unique).
    batchable(
      ctx,
      sql`SELECT g.id, g.name FROM groups g WHERE ${liveInSchool("g", ctx.tenantId)} AND g.name IN (SELECT value FROM json_each(${groupNames}))
        ORDER BY g.created_at DESC, g.id DESC`,
    ),
    batchable(ctx, sql`SELECT gm.group_id, gm.user_id FROM group_members gm WHERE ${inSchool("gm", ctx.tenantId)} AND gm.group_id IN (${groupsSql}) AND gm.user_id IN (${usersSql})`),
  ];
  if (kind === "enrollments") {
    statements.push(
      batchable(ctx, sql`SELECT c.id, c.slug FROM courses c WHERE ${liveInSchool("c", ctx.tenantId)} AND c.status = 'published' AND c.slug IN (SELECT value FROM json_each(${slugs}))`),
      batchable(
        ctx,
        sql`SELECT e.course_id, e.student_id FROM enrollments e
          WHERE ${inSchool("e", ctx.tenantId)} AND e.removed_at IS NULL AND e.course_id IN (${coursesSql}) AND e.student_id IN (${usersSql})`,
      ),
    );
  }
  const results = await runBatch(ctx, statements);
  const users = new Map(rowsOf<UserRow>(results[0]).map((row) => [row.email, row]));
  // Later rows overwrite earlier ones: ordered newest first, the oldest group of a name wins.
  const groups = new Map(rowsOf<{ id: string; name: string }>(results[1]).map((row) => [row.name, row.id]));
  const members = new Set(rowsOf<{ group_id: string; user_id: string }>(results[2]).map((row) => `${row.group_id}/${row.user_id}`));
  const courses = new Map(results[3] ? rowsOf<{ id: string; slug: string }>(results[3]).map((row) => [row.slug, row.id]) : []);
  const enrolled = new Set(results[4] ? rowsOf<{ course_id: string; student_id: string }>(results[4]).map((row) => `${row.course_id}/${row.student_id}`) : []);
  return { users, groups, members, courses, enrolled };
}

/** The rows of a file (their values by column) as the plan's rows, checked against the data now. */
export async function checkRows(ctx: SchoolCtx, kind: ImportKind, rows: readonly Values[]): Promise<CheckedRow[]> {
  const found = await lookups(ctx, kind, rows);
  const restricted = restrictedScope(ctx) !== null;
  const curatorActs = ctx.actor.role === "curator";
  const seen = new Set<string>();
  return rows.map((values, index) => {
    const errors: PlanRow["errors"] = [];
    const fail = (column: string, code: RowCode) => errors.push({ column, code });
    const target: Target = {};
    const rawEmail = values.email ?? "";
    const parsedEmail = emailField.safeParse(rawEmail);
    const email = parsedEmail.success ? parsedEmail.data : rawEmail.toLowerCase();
    if (rawEmail === "") fail("email", "missing_value");
    else if (!parsedEmail.success) fail("email", "invalid_email");
    const user = parsedEmail.success ? found.users.get(email) : undefined;
    target.email = email;
    target.userId = user?.id;
    const needText = (column: Column): string | null => {
      const value = values[column] ?? "";
      if (!name.safeParse(value).success) {
        fail(column, "missing_value");
        return null;
      }
      return value;
    };
    const groupOf = (column: "group", required: boolean) => {
      const value = values[column] ?? "";
      if (value === "") {
        if (required) fail(column, "missing_value");
        return undefined;
      }
      const id = found.groups.get(value);
      if (!id) fail(column, "group_not_found");
      return id;
    };
    let changes: Changes = {};
    let action: RowAction = "unchanged";
    let duplicateKey: string | null = parsedEmail.success ? email : null;

    if (kind === "users") {
      const first = needText("first_name");
      const last = needText("last_name");
      const roleWord = (values.role ?? "").toLowerCase();
      const role = roleWord === "" ? "student" : ROLE_WORDS[roleWord];
      if (!role) fail("role", "invalid_role");
      target.firstName = first ?? undefined;
      target.lastName = last ?? undefined;
      target.role = role;
      const groupName = values.group ?? "";
      const groupId = groupOf("group", false);
      target.groupId = groupId;
      // Adding to a group needs can_manage_groups, which a restricted curator lacks by definition.
      if (groupName !== "" && restricted) fail("group", "out_of_scope");
      if (user) {
        if (curatorActs && (user.role !== "student" || !user.in_scope)) fail("email", "out_of_scope");
        if (groupId && user.role !== "student") fail("group", "not_a_student");
        if (first !== null && first !== user.first_name) changes.first_name = [user.first_name, first];
        if (last !== null && last !== user.last_name) changes.last_name = [user.last_name, last];
        if (groupId && user.role === "student" && !found.members.has(`${groupId}/${user.id}`)) changes.group = [null, groupName];
        action = Object.keys(changes).length > 0 ? "update" : "unchanged";
      } else {
        // Curators create students only, as POST /t/users lets them.
        if (role === "curator" && curatorActs) fail("role", "out_of_scope");
        if (groupId && role === "curator") fail("group", "not_a_student");
        changes = { email: [null, email], first_name: [null, first], last_name: [null, last], role: [null, role ?? null] };
        if (groupName !== "") changes.group = [null, groupName];
        action = "create";
      }
    } else {
      const isEnrollment = kind === "enrollments";
      const other = isEnrollment ? (values.course_slug ?? "") : (values.group ?? "");
      let otherId: string | undefined;
      if (isEnrollment) {
        if (other === "") fail("course_slug", "missing_value");
        else if (!(otherId = found.courses.get(other))) fail("course_slug", "course_not_found");
        target.courseId = otherId;
      } else {
        otherId = groupOf("group", true);
        target.groupId = otherId;
      }
      duplicateKey = parsedEmail.success && other !== "" ? `${email}/${other}` : null;
      if (parsedEmail.success && !user) fail("email", "user_not_found");
      else if (user && user.role !== "student") fail("email", "not_a_student");
      else if (user && !user.in_scope) fail("email", "out_of_scope");
      if (user && otherId) {
        const has = isEnrollment ? found.enrolled.has(`${otherId}/${user.id}`) : found.members.has(`${otherId}/${user.id}`);
        if (!has) {
          changes = { [isEnrollment ? "course_slug" : "group"]: [null, other] };
          action = "create";
        }
      }
    }
    if (duplicateKey !== null) {
      if (seen.has(duplicateKey)) fail("email", "duplicate_in_file");
      seen.add(duplicateKey);
    }
    if (errors.length > 0) return { row: index + 1, action: "error", key: email, changes: {}, errors, target };
    return { row: index + 1, action, key: email, changes, errors, target };
  });
}
