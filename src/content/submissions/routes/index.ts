import { createArea } from "../../../core/http/area";
import { draftRoutesPart } from "./drafts";
import { reviewRoutesPart } from "./review";
import { submissionRoutesPart } from "./submissions";

/** Submissions of assignments: the student's drafts, one submission's read, the curators' review. */
export const submissionRoutes = createArea();
submissionRoutes.route("/", draftRoutesPart);
submissionRoutes.route("/", submissionRoutesPart);
submissionRoutes.route("/", reviewRoutesPart);
