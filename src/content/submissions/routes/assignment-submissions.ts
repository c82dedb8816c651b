import { createArea } from "../../../core/http/area";

/** Submissions under an assignment: create-or-return the draft, the worksheet, the history. */
export const assignmentSubmissionRoutesPart = createArea();
