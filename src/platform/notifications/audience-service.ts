import { sql, type SQL } from "drizzle-orm";
import { containsText, inSchool, liveInSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { restrictedScope, scopeCondition } from "../schools/curator-scope";
import { audienceCondition, parseFilter } from "./audience";
import { notificationsErrors as e } from "./errors";

interface OptionRow {
  id: string;
  label: string;
  subtitle: string | null;
  total: number;
}

/**
 * Option kinds of the audience picker: each is one query over the school (`id`, `label`,
 * `subtitle`), cut to a restricted curator's scope where it lists students' records. The kinds of
 * the learning-content areas are known names that answer "not available yet" until their area
 * registers its query with `registerOptionKind`.
 */
export type OptionKindQuery = (ctx: SchoolCtx) => SQL;

const OPTION_KINDS: Record<string, OptionKindQuery> = {
  student: (ctx) => {
    const scope = scopeCondition(sql`u.id`, restrictedScope(ctx));
    return sql`SELECT u.id, u.first_name || ' ' || u.last_name AS label, u.email AS subtitle
      FROM users u
      WHERE ${inSchool("u", ctx.tenantId)} AND u.role = 'student' AND u.deleted_at IS NULL AND u.is_active = 1 ${scope ? sql`AND ${scope}` : sql``}`;
  },
  group: (ctx) => {
    const scope = restrictedScope(ctx);
    return sql`SELECT g.id, g.name AS label,
             (SELECT count(*) FROM group_members gm JOIN users s ON s.id = gm.user_id AND s.deleted_at IS NULL AND s.role = 'student'
               WHERE gm.group_id = g.id AND ${inSchool("gm", ctx.tenantId)}) || ' students' AS subtitle
      FROM groups g
      WHERE ${liveInSchool("g", ctx.tenantId)}
        ${scope ? sql`AND g.id IN (SELECT gc.group_id FROM group_curators gc WHERE ${inSchool("gc", ctx.tenantId)} AND gc.curator_id = ${scope.curatorId})` : sql``}`;
  },
};

/** Every kind the picker knows, registered or not: the query schema's enum. */
export const AUDIENCE_OPTION_KINDS = ["student", "group", "course", "module", "lesson", "quiz", "assignment", "exam", "path"] as const;
const LATER_KINDS = new Set<string>(AUDIENCE_OPTION_KINDS.filter((kind) => !(kind in OPTION_KINDS)));

/** A learning-content area adds its option kind (one of `AUDIENCE_OPTION_KINDS`) when its data exists. */
export function registerOptionKind(kind: (typeof AUDIENCE_OPTION_KINDS)[number], build: OptionKindQuery): void {
  OPTION_KINDS[kind] = build;
  LATER_KINDS.delete(kind);
}

export async function audienceOptions(ctx: SchoolCtx, input: { kind: string; q?: string; limit: number }) {
  const build = OPTION_KINDS[input.kind];
  if (!build) {
    throw new ApiError(e.INVALID_AUDIENCE, {
      message: LATER_KINDS.has(input.kind) ? `Options of kind ${input.kind} are not available yet: they come with a later part of the platform.` : `Unknown kind ${input.kind}.`,
    });
  }
  const search = input.q ? sql`(${containsText(sql`o.label`, input.q)} OR ${containsText(sql`coalesce(o.subtitle, '')`, input.q)})` : sql`1`;
  // The page and the number of matches in one statement: the window count is taken before LIMIT.
  const rows = (await ctx.db.all<OptionRow>(sql`SELECT o.id, o.label, o.subtitle, count(*) OVER () AS total
    FROM (${build(ctx)}) o WHERE ${search}
    ORDER BY o.label, o.id LIMIT ${input.limit}`)) as OptionRow[];
  return {
    kind: input.kind,
    options: rows.map((row) => ({ id: row.id, label: row.label, subtitle: row.subtitle })),
    total: rows[0]?.total ?? 0,
    limit: input.limit,
  };
}

/** Counts and samples the students a filter selects; nothing is saved. One statement. */
export async function previewAudience(ctx: SchoolCtx, input: { filter: unknown; sampleLimit: number }) {
  const condition = audienceCondition(ctx, parseFilter(input.filter));
  const rows = (await ctx.db.all<{ id: string; email: string; first_name: string; last_name: string; total: number }>(sql`
    SELECT u.id, u.email, u.first_name, u.last_name, count(*) OVER () AS total
    FROM users u WHERE ${condition}
    ORDER BY u.last_name, u.first_name, u.id
    LIMIT ${input.sampleLimit}`)) as { id: string; email: string; first_name: string; last_name: string; total: number }[];
  const count = rows[0]?.total ?? 0;
  return {
    audience: {
      count,
      sample: rows.map((row) => ({ id: row.id, email: row.email, first_name: row.first_name, last_name: row.last_name })),
      sample_limit: input.sampleLimit,
      capped: count > rows.length,
    },
  };
}
