import { createArea } from "../../../core/http/area";

/** One submission: read, edit the draft, submit, review, reopen. */
export const submissionRoutesPart = createArea();
