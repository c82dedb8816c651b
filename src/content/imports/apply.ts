import { sql } from "drizzle-orm";
import { batchable, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import type { Locale } from "../../core/env";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { DAY_MS } from "../../core/lib/clock";
import { uuidv7 } from "../../core/lib/ids";
import { auditEntry } from "../../platform/audit/write";
import { setPasswordCode } from "../../platform/auth/password-reset-service";
import { setPasswordUrl } from "../../platform/email/links";
import { enqueueEmails, queueEmail } from "../../platform/email/outbox";
import { restrictedScope } from "../../platform/schools/curator-scope";
import { listedIds, rebuildCuratorStudents } from "../../platform/schools/curator-students";
import { dispatchQueued } from "../../platform/notifications/enqueue";
import { defaultPermissionsStatement } from "../../platform/users/permissions";
import { userCreatedWebhooks, userUpdatedWebhooks } from "../../platform/users/webhooks";
import { webhookOutboxStatements } from "../../platform/webhooks/outbox";
import { bulkEnroll } from "../enrollments/enroll-service";
import { addMembers } from "../groups/member-service";
import { importsErrors as e } from "./errors";
import type { ApplyBody } from "./schemas";
import { CHUNK_ROWS, presentImport, readImport, type ImportRecord, type StoredRow } from "./store";
import { checkRows, type CheckedRow } from "./validate";

/**
 * POST /t/imports/:id/apply (05 section 3, docs/decisions/imports.md, "Applying"): the plan is
 * checked again against the data now and applied in batches of 500 rows, each batch recording how
 * far the import got, so a retry after a crash continues after the last finished batch.
 */

const INVITE_VALID_DAYS = 7;
/** An invited user signs in only after setting a password: this matches no password hash. */
const NO_PASSWORD = "!invited";

function sameRow(planned: StoredRow, now: CheckedRow): boolean {
  return planned.action === now.action && JSON.stringify(planned.changes) === JSON.stringify(now.changes);
}

export async function applyImport(ctx: SchoolCtx, input: { id: string; body: ApplyBody; locale: Locale }) {
  const { id, body } = input;
  const { record, rows } = await readImport(ctx, id, { allChunks: true });
  if (record.status === "applied") throw new ApiError(e.IMPORT_ALREADY_APPLIED);
  const now = ctx.clock.now();
  if (now >= record.expires_at) throw new ApiError(e.IMPORT_EXPIRED);
  const counts = JSON.parse(record.counts) as Record<"rows" | "create" | "update" | "unchanged" | "error", number>;
  if (counts.error > 0 && !body.skip_errors) throw new ApiError(e.IMPORT_HAS_ERRORS);
  if (body.plan_hash !== record.plan_hash) throw new ApiError(e.IMPORT_PLAN_STALE);
  const fresh = await checkRows(ctx, record.kind, rows.map((row) => row.values));
  const resuming = record.status === "applying";
  for (let index = record.progress; index < rows.length; index += 1) {
    const planned = rows[index]!;
    const current = fresh[index]!;
    if (sameRow(planned, current)) continue;
    // The batch a crash interrupted may have written its rows already (enrollments and
    // memberships are written by their own verbs before the progress is recorded).
    const interrupted = resuming && index < record.progress + CHUNK_ROWS && planned.action !== "error" && current.action === "unchanged";
    if (!interrupted) throw new ApiError(e.IMPORT_PLAN_STALE);
  }
  const claimed = await runBatch(ctx, [
    batchable(
      ctx,
      sql`UPDATE imports SET status = 'applying' WHERE id = ${id} AND ${inSchool(ctx.tenantId)} AND status IN ('ready', 'invalid', 'applying') RETURNING progress`,
    ),
  ]);
  if (rowsOf(claimed[0]).length === 0) throw new ApiError(e.IMPORT_ALREADY_APPLIED);

  for (let start = record.progress; start < rows.length; start += CHUNK_ROWS) {
    const end = Math.min(start + CHUNK_ROWS, rows.length);
    const progress = batchable(ctx, sql`UPDATE imports SET progress = ${end} WHERE id = ${id} AND ${inSchool(ctx.tenantId)} AND progress = ${start}`);
    const slice = rows.slice(start, end).map((planned, offset) => ({ planned, current: fresh[start + offset]! }));
    const todo = slice.filter(({ planned, current }) => planned.action !== "error" && current.action !== "unchanged").map(({ current }) => current);
    if (record.kind === "users") await applyUsers(ctx, { todo, progress, locale: input.locale });
    else {
      await applyLinks(ctx, record.kind, todo);
      await runBatch(ctx, [progress]);
    }
  }
  if (record.kind === "users") await joinGroups(ctx, rows, fresh);
  return finish(ctx, record, rows, counts);
}

/** One batch: the new users (with their set-password code and invitation), the renamed ones, the progress. */
async function applyUsers(ctx: SchoolCtx, input: { todo: CheckedRow[]; progress: BatchItem; locale: Locale }) {
  const now = ctx.clock.now();
  const restricted = restrictedScope(ctx) !== null;
  const statements: BatchItem[] = [];
  const emails: string[] = [];
  const createdIds: string[] = [];
  const updatedIds: string[] = [];
  for (const row of input.todo) {
    const target = row.target;
    if (row.action === "update") {
      updatedIds.push(target.userId!);
      statements.push(
        batchable(
          ctx,
          sql`UPDATE users SET first_name = ${target.firstName!}, last_name = ${target.lastName!}, updated_at = ${now}
            WHERE id = ${target.userId!} AND ${liveInSchool(ctx.tenantId)}`,
        ),
      );
      continue;
    }
    const userId = uuidv7(now);
    createdIds.push(userId);
    const role = target.role!;
    statements.push(
      batchable(
        ctx,
        sql`INSERT INTO users (id, tenant_id, email, password_hash, first_name, last_name, avatar, role, is_active, email_verified_at, last_active_at,
            individual_curator_id, created_at, updated_at)
          VALUES (${userId}, ${ctx.tenantId}, ${target.email!}, ${NO_PASSWORD}, ${target.firstName!}, ${target.lastName!}, NULL, ${role}, 1, ${now}, NULL,
            ${restricted && role === "student" ? ctx.actor.userId : null}, ${now}, ${now})
          ON CONFLICT DO NOTHING`,
      ),
    );
    if (role === "curator") statements.push(defaultPermissionsStatement(ctx, { userId, now }));
    // Only when this batch created the user: a concurrent creation of the address keeps its own account.
    const created = sql`EXISTS (SELECT 1 FROM users cu WHERE cu.id = ${userId} AND ${inSchool("cu", ctx.tenantId)})`;
    const code = await setPasswordCode(ctx, { tenantId: ctx.tenantId, userId, now, validMs: INVITE_VALID_DAYS * DAY_MS });
    const email = queueEmail(ctx, {
      tenantId: ctx.tenantId,
      to: target.email!,
      kind: "account_invite",
      locale: input.locale,
      variables: {
        schoolTitle: ctx.tenant.title,
        firstName: target.firstName!,
        email: target.email!,
        setPasswordUrl: setPasswordUrl(ctx, { role, subdomain: ctx.tenant.subdomain, email: target.email!, code: code.code }),
        validDays: INVITE_VALID_DAYS,
      },
      meta: { user_id: userId },
    });
    statements.push(code.insertWhere(created), email.insertWhere(created));
    emails.push(email.id);
  }
  // After the writes: an event per user this batch created (a concurrent creation of the address keeps its own) or renamed.
  const hooks = [...userCreatedWebhooks(ctx, createdIds), ...userUpdatedWebhooks(ctx, updatedIds, now)];
  // A restricted curator's new students are theirs (the group column joins later, through addMembers).
  const pairs = restricted && createdIds.length > 0 ? rebuildCuratorStudents(ctx, { students: listedIds(createdIds) }) : [];
  await runBatch(ctx, [...statements, ...pairs, ...hooks, input.progress]);
  await enqueueEmails(ctx, emails);
  await dispatchQueued(ctx);
}

/** Enrollments or memberships through their own verbs (pushes, access sources, progress), per course or group. */
async function applyLinks(ctx: SchoolCtx, kind: "enrollments" | "group_members", todo: CheckedRow[]) {
  const byTarget = new Map<string, string[]>();
  for (const row of todo) {
    const key = kind === "enrollments" ? row.target.courseId! : row.target.groupId!;
    byTarget.set(key, [...(byTarget.get(key) ?? []), row.target.userId!]);
  }
  for (const [targetId, studentIds] of byTarget) {
    if (kind === "enrollments") await bulkEnroll(ctx, { courseId: targetId, studentIds });
    else await addMembers(ctx, { groupId: targetId, studentIds });
  }
}

/**
 * The group column of a users import, after every user exists: memberships through the groups'
 * own verb, 500 at a time. Idempotent (a member already in is skipped), so a retry repeats it.
 */
async function joinGroups(ctx: SchoolCtx, rows: readonly StoredRow[], fresh: readonly CheckedRow[]) {
  const joining = rows.flatMap((row, index) => (row.action !== "error" && row.changes.group && fresh[index]!.target.groupId ? [fresh[index]!] : []));
  if (joining.length === 0) return;
  const emails = JSON.stringify([...new Set(joining.map((row) => row.target.email!))]);
  const [found] = await runBatch(ctx, [
    batchable(ctx, sql`SELECT u.id, u.email FROM users u WHERE ${liveInSchool("u", ctx.tenantId)} AND u.role = 'student' AND u.email IN (SELECT value FROM json_each(${emails}))`),
  ]);
  const ids = new Map(rowsOf<{ id: string; email: string }>(found).map((row) => [row.email, row.id]));
  const byGroup = new Map<string, string[]>();
  for (const row of joining) {
    const userId = ids.get(row.target.email!);
    if (userId) byGroup.set(row.target.groupId!, [...(byGroup.get(row.target.groupId!) ?? []), userId]);
  }
  for (const [groupId, studentIds] of byGroup) {
    for (let start = 0; start < studentIds.length; start += CHUNK_ROWS) await addMembers(ctx, { groupId, studentIds: studentIds.slice(start, start + CHUNK_ROWS) });
  }
}

/** The import becomes `applied` with its result, and the one audit entry is written with it. */
async function finish(ctx: SchoolCtx, record: ImportRecord, rows: readonly StoredRow[], counts: Record<string, number>) {
  const now = ctx.clock.now();
  const result = { created: counts.create ?? 0, updated: counts.update ?? 0, unchanged: counts.unchanged ?? 0, skipped: counts.error ?? 0 };
  const applied = sql`EXISTS (SELECT 1 FROM imports WHERE id = ${record.id} AND ${inSchool(ctx.tenantId)} AND status = 'applied' AND applied_at = ${now})`;
  const view = presentImport({ ...record, status: "applied", applied_at: now, result: JSON.stringify(result), progress: rows.length }, rows);
  await runBatch(ctx, [
    batchable(
      ctx,
      sql`UPDATE imports SET status = 'applied', applied_at = ${now}, result = ${JSON.stringify(result)}
        WHERE id = ${record.id} AND ${inSchool(ctx.tenantId)} AND status = 'applying'`,
    ),
    auditEntry(ctx, {
      action: "import.applied",
      targetType: "import",
      targetId: record.id,
      summary: `Roster import applied (${record.kind})`,
      changes: {
        kind: [null, record.kind],
        file_sha256: [null, record.file_sha256],
        created: [null, result.created],
        updated: [null, result.updated],
        unchanged: [null, result.unchanged],
        skipped: [null, result.skipped],
      },
      when: applied,
    }),
    // Once per import (its key): an apply resumed after this batch committed writes no second one.
    ...webhookOutboxStatements(ctx, "import.applied", view, { when: applied, occurrence: `import:${record.id}` }),
  ]);
  await dispatchQueued(ctx);
  return view;
}
