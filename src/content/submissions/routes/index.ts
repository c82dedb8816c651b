import { createArea } from "../../../core/http/area";
import { assignmentSubmissionRoutesPart } from "./assignment-submissions";
import { submissionRoutesPart } from "./submissions";

/** Submissions of assignments: the student's attempts and the curators' review. */
export const submissionRoutes = createArea();
submissionRoutes.route("/", assignmentSubmissionRoutesPart);
submissionRoutes.route("/", submissionRoutesPart);
