import { z } from "@hono/zod-openapi";
import { pageQuery } from "../../core/http/pagination";

const ACTIONS = ["create", "update", "unchanged", "error"] as const;

export const ImportQuery = z.object({
  kind: z.enum(["users", "enrollments", "group_members"]).openapi({ description: "users, enrollments or group_members; anything else answers 400 invalid_import_kind" }),
});

export const RowsQuery = z.object({
  action: z.enum(ACTIONS).optional(),
  ...pageQuery({ maxLimit: 500, defaultLimit: 100 }),
});
export type RowsQuery = z.infer<typeof RowsQuery>;

export const ApplyBody = z
  .object({
    plan_hash: z.string().min(1).max(128).openapi({ description: "The plan_hash of the dry run being applied" }),
    skip_errors: z.boolean().default(false).openapi({ description: "Apply the other rows when the plan has error rows" }),
  })
  .openapi("ImportApplyRequest");
export type ApplyBody = z.infer<typeof ApplyBody>;

export const ImportRow = z
  .object({
    row: z.number().int().openapi({ description: "1-based data row of the file" }),
    action: z.enum(ACTIONS),
    key: z.string().openapi({ description: "the row's email, lower-cased" }),
    changes: z.record(z.string(), z.tuple([z.unknown(), z.unknown()])).openapi({ description: "{field: [before, after]}" }),
    errors: z.array(
      z.object({
        column: z.string(),
        code: z.enum([
          "invalid_email",
          "missing_value",
          "invalid_role",
          "duplicate_in_file",
          "user_not_found",
          "course_not_found",
          "group_not_found",
          "not_a_student",
          "out_of_scope",
        ]),
      }),
    ),
  })
  .openapi("ImportRow");

const Counts = z.object({ rows: z.number().int(), create: z.number().int(), update: z.number().int(), unchanged: z.number().int(), error: z.number().int() });

export const Import = z
  .object({
    id: z.string(),
    kind: z.enum(["users", "enrollments", "group_members"]),
    status: z.enum(["ready", "invalid", "applying", "applied"]),
    created_at: z.string(),
    expires_at: z.string(),
    applied_at: z.string().nullable(),
    counts: Counts,
    plan_hash: z.string(),
    preview: z.array(ImportRow).openapi({ description: "the first 50 rows" }),
    result: z.object({ created: z.number().int(), updated: z.number().int(), unchanged: z.number().int(), skipped: z.number().int() }).nullable(),
  })
  .openapi("Import");

export const ImportRows = z
  .object({ rows: z.array(ImportRow), total: z.number().int(), page: z.number().int(), limit: z.number().int() })
  .openapi("ImportRows");
