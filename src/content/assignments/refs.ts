import { sql } from "drizzle-orm";
import { registerBlockRef } from "../courses/references";
import { assignmentsForEmbed } from "./assignment-read";
import { liveInSchool } from "../../core/db/conditions";

/**
 * What assignments tell the course tree (loaded with the assignment routes): an `assignment_ref`
 * block names an existing assignment while it is live in the school (a deleted one no longer
 * exists for blocks and is embedded nowhere); full blocks embed it in the caller's view, light
 * (no attachments; a student it does not target gets nothing).
 */
registerBlockRef("assignment_ref", {
  exists: (tenantId, id) => sql`EXISTS (SELECT 1 FROM assignments ra WHERE ra.id = ${id} AND ${liveInSchool("ra", tenantId)})`,
  embed: assignmentsForEmbed,
});
