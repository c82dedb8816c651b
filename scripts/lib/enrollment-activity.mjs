/**
 * The enrollments' stored latest completion (`last_completion_at`) of one school rebuilt from its
 * completions: the statement of the migration that added the column (0021, for every school) and
 * what the completing batches' recount keeps (src/content/common/progress.ts). A source of the app
 * sets it in its own batch; completions a seed or the bench writes behind its back need this
 * afterwards. Only rows whose value differs are written, so a second run changes nothing.
 */
import { literal } from "./sql.mjs";

export function enrollmentLastCompletionSql(tenantId) {
  const t = literal(tenantId);
  const latest = `(SELECT MAX(bc.completed_at) FROM block_completions bc
    WHERE bc.tenant_id = ${t} AND bc.student_id = enrollments.student_id AND bc.course_id = enrollments.course_id)`;
  return `UPDATE enrollments SET last_completion_at = ${latest} WHERE tenant_id = ${t} AND last_completion_at IS NOT ${latest};\n`;
}
