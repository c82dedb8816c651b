import { z } from "@hono/zod-openapi";
import { uuidField } from "../../core/http/fields";
import { pageQuery } from "../../core/http/pagination";

/** An action or target-type filter: the catalogue's spelling (lowercase words, dots, underscores); an unknown one matches nothing. */
const catalogueName = z.string().min(1).max(64).regex(/^[a-z][a-z_]*(\.[a-z][a-z_]*)?$/);

export const AuditLogQuery = z.object({
  actor_id: uuidField.optional(),
  action: catalogueName.optional().openapi({ example: "user.updated" }),
  target_type: catalogueName.optional().openapi({ example: "user" }),
  // Targets are UUIDs or catalogue codes (a push event's `course.published`): printable ASCII only.
  target_id: z.string().min(1).max(100).regex(/^[A-Za-z0-9._:-]+$/).optional(),
  from: z.iso.datetime({ offset: true }).optional().openapi({ description: "ISO 8601; entries at or after it" }),
  to: z.iso.datetime({ offset: true }).optional().openapi({ description: "ISO 8601; entries at or before it" }),
  ...pageQuery({ maxLimit: 100, defaultLimit: 50 }),
});

const AuditActor = z
  .object({ id: z.string().nullable(), role: z.string().nullable(), name: z.string().nullable() })
  .openapi({ description: "Null for a system job; id and name are null once the person was permanently deleted" });

export const AuditEntry = z
  .object({
    id: z.string(),
    at: z.string(),
    actor: AuditActor.nullable(),
    action: z.string(),
    target_type: z.string(),
    target_id: z.string().nullable(),
    summary: z.string(),
    changes: z.record(z.string(), z.tuple([z.unknown(), z.unknown()])),
    request_id: z.string().nullable(),
  })
  .openapi("AuditEntry");

export const AuditLogPage = z.object({ entries: z.array(AuditEntry), total: z.number().int(), page: z.number().int(), limit: z.number().int() });
